// The coalescing post-commit dispatch on both dialects, with a recording runtime: concurrent
// callers share one dispatch; `markQueued` moves accepted jobs to queued (events handed back to
// their callers) with their outbox rows deleted in the same transaction; a failed dispatch leaves
// every row for the reconciler; a row re-written after the dispatch began (a retry) survives.

import {
  EMBEDDED_CAPABILITIES,
  formatJobId,
  type MessagePointer,
  type RuntimeDispatcher,
} from '@sluice/contracts';
import { addToOutbox, dueOutbox, getJobById, insertJob, isoIn, type Db } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { createDispatchBatcher } from './dispatch-batcher.js';

function recordingRuntime() {
  const calls: MessagePointer[][] = [];
  const state = { fail: false };
  const runtime: RuntimeDispatcher<Db> = {
    name: 'recording',
    // A transport outside the database: dispatch runs after commit.
    capabilities: { ...EMBEDDED_CAPABILITIES, dispatchesInTransaction: false },
    async dispatch(pointers) {
      await new Promise((r) => setTimeout(r, 5));
      if (state.fail) throw new Error('transport down');
      calls.push([...pointers]);
    },
    close: async () => {},
  };
  return { runtime, calls, state };
}

describeEachDialect('dispatch batcher', (ctx) => {
  async function acceptedJobs(n: number): Promise<MessagePointer[]> {
    const pointers = Array.from({ length: n }, () => ({
      jobId: formatJobId('v1'),
      kind: 'demo.echo',
      version: 'v1',
      tenantId: 'acme',
    }));
    await ctx().database.transaction(async (tx) => {
      for (const p of pointers) {
        await insertJob(tx, {
          id: p.jobId,
          tenantId: p.tenantId,
          kind: p.kind,
          version: p.version,
          input: {},
          inputHash: 'h',
          maxAttempts: 3,
        });
      }
      await addToOutbox(
        tx,
        pointers.map((p) => p.jobId),
      );
    });
    return pointers;
  }

  it('shares one dispatch across callers and queues accepted jobs with their rows removed', async () => {
    const { runtime, calls } = recordingRuntime();
    const errors: unknown[] = [];
    const batcher = createDispatchBatcher(runtime, ctx().database, (e) => errors.push(e));
    const pointers = await acceptedJobs(30);
    const outcomes = await Promise.all(pointers.map((p) => batcher.dispatch([p], true)));
    expect(calls.length).toBeLessThanOrEqual(3);
    expect(
      calls
        .flat()
        .map((p) => p.jobId)
        .sort(),
    ).toEqual(pointers.map((p) => p.jobId).sort());
    outcomes.forEach((o, i) => {
      expect(o.dispatched).toBe(true);
      expect(o.events.map((e) => [e.event.jobId, 'to' in e.event && e.event.to])).toEqual([
        [pointers[i]?.jobId, 'queued'],
      ]);
    });
    expect((await getJobById(ctx().database.db, pointers[0]?.jobId ?? ''))?.state).toBe('queued');
    expect(await dueOutbox(ctx().database.db, '9999')).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('leaves every outbox row when the dispatch fails', async () => {
    const { runtime, state } = recordingRuntime();
    state.fail = true;
    const errors: unknown[] = [];
    const batcher = createDispatchBatcher(runtime, ctx().database, (e) => errors.push(e));
    const pointers = await acceptedJobs(5);
    const outcomes = await Promise.all(pointers.map((p) => batcher.dispatch([p], false)));
    expect(outcomes.every((o) => !o.dispatched && o.events.length === 0)).toBe(true);
    await batcher.flush();
    expect((await dueOutbox(ctx().database.db, '9999')).sort()).toEqual(
      pointers.map((p) => p.jobId).sort(),
    );
    expect(errors).toHaveLength(1);
    await ctx().database.db.deleteFrom('outbox').execute();
  });

  it('keeps a row re-written after the dispatch began (a worker retry due later)', async () => {
    const { runtime } = recordingRuntime();
    const batcher = createDispatchBatcher(runtime, ctx().database, () => {}, {
      deleteDelayMs: 50,
    });
    const [retried, plain] = (await acceptedJobs(2)) as [MessagePointer, MessagePointer];
    await Promise.all([batcher.dispatch([retried], false), batcher.dispatch([plain], false)]);
    // A worker ran the job, failed it and asked for it back in 10 s, before the delete ran.
    await addToOutbox(ctx().database.db, [retried.jobId], isoIn(10_000));
    await batcher.flush();
    expect(await dueOutbox(ctx().database.db, isoIn(20_000))).toEqual([retried.jobId]);
  });
});
