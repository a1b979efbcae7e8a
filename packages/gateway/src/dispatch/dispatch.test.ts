// The outbox path, for runtimes whose queue is not in the job database:
// outbox row and the queued transition in the accept transaction, dispatch after commit, then the
// outbox cleared. A dispatch that fails after commit leaves the outbox row for the reconciler.

import type { MessagePointer, RuntimeDispatcher } from '@sluice/contracts';
import { dueOutbox, getJobById, listEvents, type Db } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EMBEDDED_CAPABILITIES } from '../runtimes/embedded.js';
import { deadLetterJob } from '../testing/drive.js';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';

function createOutsideRuntime() {
  const dispatched: MessagePointer[] = [];
  const state = { failing: false };
  const runtime: RuntimeDispatcher<Db> = {
    name: 'outside',
    capabilities: { ...EMBEDDED_CAPABILITIES, dispatchesInTransaction: false, carriesEvents: true },
    async dispatch(pointers, tx) {
      if (tx !== undefined) throw new Error('an outside runtime never joins the transaction');
      if (state.failing) throw new Error('stream unavailable');
      dispatched.push(...pointers);
    },
    async close() {},
  };
  return { runtime, dispatched, state };
}

describeEachDialect('dispatch through the outbox', (ctx) => {
  let f: GatewayFixture;
  const outside = createOutsideRuntime();
  beforeAll(async () => {
    f = await startGateway(ctx(), { runtime: outside.runtime });
  });
  afterAll(async () => {
    await f.close();
  });

  it('queues the job at commit, dispatches after commit and clears the outbox', async () => {
    const r = await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'o' } });
    expect(r.state).toBe('queued');
    expect(outside.dispatched.map((p) => p.jobId)).toContain(r.id);
    // Deleted in the background, a few submits at a time.
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).toEqual([]);
    const events = await listEvents(ctx().database.db, r.id);
    expect(events.map((e) => ('to' in e ? e.to : e.type))).toEqual(['accepted', 'queued']);
  });

  it('leaves the queued job with its outbox row when dispatch fails', async () => {
    outside.state.failing = true;
    try {
      const r = await f
        .http(f.keyA)
        .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' } });
      expect(r.state).toBe('queued');
      expect((await getJobById(ctx().database.db, r.id))?.state).toBe('queued');
      expect(await dueOutbox(ctx().database.db, '9999')).toEqual([r.id]);
    } finally {
      outside.state.failing = false;
    }
  });

  it('requeues a dead-lettered job through the outbox too', async () => {
    const db = ctx().database.db;
    await db.deleteFrom('outbox').execute();
    const { id } = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'd' } });
    await deadLetterJob(ctx().database, id);
    const before = outside.dispatched.length;
    expect(await f.http(f.keyA).deadLetters.requeue.mutate({ id })).toEqual({
      id,
      state: 'queued',
    });
    expect(outside.dispatched.slice(before).map((p) => p.jobId)).toEqual([id]);
    await expect.poll(() => dueOutbox(db, '9999')).toEqual([]);
  });
});
