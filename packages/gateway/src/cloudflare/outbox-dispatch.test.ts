// The Workers dispatch path: an accepted job's outbox row stays until its instance exists, and the
// cron reconcile creates what a failed (or never finished) post-accept dispatch still owes.
import { formatJobId, type MessagePointer } from '@sluice/contracts';
import { acceptJobs, addToOutbox, migrate, openDatabase, outboxDepth } from '@sluice/storage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOutboxDispatchPath, reconcileOutbox } from './outbox-dispatch.js';
import type { WorkflowBindingLike } from './platform.js';
import { createWorkflowsDispatcher } from './workflows-dispatcher.js';

const database = openDatabase({ url: ':memory:' });
beforeAll(() => migrate(database));
afterAll(() => database.close());

function binding(failing: { on: boolean }) {
  const created = new Set<string>();
  const b: WorkflowBindingLike<MessagePointer> = {
    async create({ id }) {
      if (failing.on) throw new Error('workflows unavailable');
      created.add(id);
      return { id };
    },
    async get(id) {
      if (!created.has(id)) throw new Error('instance.not_found');
      return { id, status: async () => ({ status: 'running' }), terminate: async () => {} };
    },
  };
  return { b, created };
}

it('a failed dispatch keeps the outbox row; the reconcile creates the instance once it is due', async () => {
  const failing = { on: true };
  const v1 = binding(failing);
  const dispatcher = createWorkflowsDispatcher({ database, workflows: { v1: v1.b } });
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
  const v1 = binding({ on: false });
  const dispatcher = createWorkflowsDispatcher({ database, workflows: { v1: v1.b } });
  const path = createOutboxDispatchPath(dispatcher, database, () => {});
  const pointer = { jobId: formatJobId('v1'), kind: 'demo.k', version: 'v1', tenantId: 'acme' };
  await addToOutbox(database.db, [pointer.jobId]);
  expect((await path.afterCommit([pointer], { markQueued: false })).dispatched).toBe(true);
  expect(await outboxDepth(database.db)).toBe(0);
});
