// The Workers dispatch path: an accepted job's outbox row stays until the runtime has it, and the
// cron reconcile hands over what a failed (or never finished) post-accept dispatch still owes.
import { formatJobId } from '@sluice/contracts';
import { acceptJobs, addToOutbox, migrate, openDatabase, outboxDepth } from '@sluice/storage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PUSH_RUNTIME_CAPABILITIES } from '../testing/capabilities.js';
import type { GatewayDispatcher } from '../wire/gateway-dispatcher.js';
import { createOutboxDispatchPath, reconcileOutbox } from './outbox-dispatch.js';

const database = openDatabase({ url: ':memory:' });
beforeAll(() => migrate(database));
afterAll(() => database.close());

/** A push runtime that names each run by its job id (a repeat is the same run), and can fail. */
function pushRuntime(failing: { on: boolean }) {
  const created = new Set<string>();
  const dispatcher: GatewayDispatcher = {
    name: 'push',
    capabilities: PUSH_RUNTIME_CAPABILITIES,
    async dispatch(pointers) {
      if (failing.on) throw new Error('runtime unavailable');
      for (const p of pointers) created.add(p.jobId);
    },
    close: async () => {},
  };
  return { dispatcher, created };
}

it('a failed dispatch keeps the outbox row; the reconcile hands the job over once it is due', async () => {
  const failing = { on: true };
  const v1 = pushRuntime(failing);
  const { dispatcher } = v1;
  const errors: unknown[] = [];
  const path = createOutboxDispatchPath(dispatcher, database, (e) => errors.push(e));
  const id = formatJobId('v1');
  const pointer = { jobId: id, kind: 'demo.k', version: 'v1', tenantId: 'acme' };
  await acceptJobs(database, [
    {
      ...pointer,
      id,
      input: {},
      inputHash: 'h',
      maxAttempts: 3,
      outcome: { to: 'queued' },
    },
  ]);
  await path.stage(database.db, [pointer]);
  expect(await path.afterCommit([pointer], { markQueued: false })).toEqual({
    dispatched: false,
    events: [],
  });
  expect(errors).toHaveLength(1);
  expect(await outboxDepth(database.db)).toBe(1);

  failing.on = false;
  // not due yet: the row is younger than the grace period
  expect(await reconcileOutbox(dispatcher, database, { graceMs: 60_000 })).toBe(0);
  expect(v1.created.size).toBe(0);
  expect(await reconcileOutbox(dispatcher, database, { graceMs: 0, now: Date.now() + 1 })).toBe(1);
  expect([...v1.created]).toEqual([id]);
  expect(await outboxDepth(database.db)).toBe(0);
});

it('a dispatch that goes through removes its outbox row at once', async () => {
  const { dispatcher } = pushRuntime({ on: false });
  const path = createOutboxDispatchPath(dispatcher, database, () => {});
  const pointer = { jobId: formatJobId('v1'), kind: 'demo.k', version: 'v1', tenantId: 'acme' };
  await addToOutbox(database.db, [pointer.jobId]);
  expect((await path.afterCommit([pointer], { markQueued: false })).dispatched).toBe(true);
  expect(await outboxDepth(database.db)).toBe(0);
});
