// Catches a flow key whose lock does not serialise two deciders, and a fold or batch append that
// lands on a job the due-job scheduler already moved on (the input would be lost: the run read the
// job before it). On SQLite and PostgreSQL, with a second database handle playing another gateway.
import { formatJobId } from '@sluice/contracts';
import { describeEachDialect } from '../testing/dialects.js';
import { expect, it } from 'vitest';
import { acceptJobs } from './accept-jobs.js';
import {
  appendToBatch,
  foldIntoScheduled,
  lockFlowKey,
  releasableKeys,
  setFlowKey,
  holdForKey,
} from './flow-keys.js';
import { transitionJobs } from './bulk-transitions.js';
import { transitionJob } from './jobs.js';

describeEachDialect('flow keys', (ctx) => {
  const tenantId = 'acme';
  const scheduledJob = async (input: unknown) => {
    const id = formatJobId('v1');
    await acceptJobs(ctx().database, [
      {
        id,
        tenantId,
        kind: 'demo.flow',
        version: 'v1',
        input,
        inputHash: 'h',
        maxAttempts: 3,
        outcome: { to: 'scheduled', runAt: new Date(Date.now() + 60_000).toISOString() },
      },
    ]);
    return id;
  };
  const inputOf = async (id: string) => {
    const row = await ctx()
      .database.db.selectFrom('jobs')
      .select('input')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return JSON.parse(String(row.input)) as unknown;
  };

  it('two transactions on one key decide one after the other', async ({ skip }) => {
    // With one writer at a time (SQLite) the database itself serialises them; shown here only
    // where writers run at once: in one process a second SQLite handle's busy wait would block
    // the event loop the first transaction needs to commit.
    if (!ctx().database.capabilities.concurrentWriters) skip('one writer at a time');
    const a = ctx().database;
    const b = ctx().open();
    const ref = { tenantId, kind: 'demo.flow', flow: 'debounce', key: 'serial' };
    // The key's row exists already (a new row's unique index would serialise them anyway).
    await a.transaction((tx) => lockFlowKey(tx, ref));
    const order: string[] = [];
    const first = a.transaction(async (tx) => {
      await lockFlowKey(tx, ref);
      order.push('a locked');
      await new Promise((r) => setTimeout(r, 300));
      await setFlowKey(tx, ref, { jobId: 'v1-a', openedAt: 1, closesAt: null, size: 1 });
      order.push('a done');
    });
    await new Promise((r) => setTimeout(r, 50));
    const second = b.transaction(async (tx) => {
      const slot = await lockFlowKey(tx, ref);
      order.push(`b locked, saw ${slot.jobId}`);
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['a locked', 'a done', 'b locked, saw v1-a']);
  });

  it('a fold or an append changes only a job that still waits', async () => {
    const { database } = ctx();
    const folded = await scheduledJob({ n: 1 });
    expect(
      await foldIntoScheduled(database.db, folded, {
        input: { n: 2 },
        inputHash: 'h2',
        runAfter: 5,
      }),
    ).toBe(true);
    expect(await inputOf(folded)).toEqual({ n: 2 });
    const batch = await scheduledJob([{ n: 1 }]);
    expect(await appendToBatch(database.db, batch, { n: 2 }, undefined)).toBe(1);
    expect(await inputOf(batch)).toEqual([{ n: 1 }, { n: 2 }]);

    // The due-job scheduler moves both on: later writes leave them as they ran.
    for (const id of [folded, batch]) {
      const moved = await transitionJob(database.db, { id, event: 'due' }, Date.now() + 120_000);
      expect(moved.ok).toBe(true);
    }
    expect(
      await foldIntoScheduled(database.db, folded, {
        input: { n: 3 },
        inputHash: 'h3',
        runAfter: 5,
      }),
    ).toBe(false);
    expect(await appendToBatch(database.db, batch, { n: 3 }, undefined)).toBeUndefined();
    expect(await inputOf(folded)).toEqual({ n: 2 });
    expect(await inputOf(batch)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('a due move read before a fold that moved the due time later leaves the job waiting', async () => {
    const { database } = ctx();
    const id = await scheduledJob({ n: 1 });
    const readAt = Date.now() + 60_000; // the scheduler read the job as due at this instant
    expect(
      await foldIntoScheduled(database.db, id, {
        input: { n: 2 },
        inputHash: 'h2',
        runAfter: readAt + 5_000,
      }),
    ).toBe(true);
    const [moved] = await transitionJobs(database.db, [{ id, event: 'due' }], readAt);
    expect(moved?.ok).toBe(false);
    const [later] = await transitionJobs(database.db, [{ id, event: 'due' }], readAt + 5_000);
    expect(later?.ok).toBe(true);
  });

  it('a key with held jobs is releasable once its current job is final', async () => {
    const { database } = ctx();
    const ref = { tenantId, kind: 'demo.flow', flow: 'singleton', key: 'rel' };
    const current = await scheduledJob({ n: 1 });
    const held = await scheduledJob({ n: 2 });
    await database.transaction(async (tx) => {
      await lockFlowKey(tx, ref);
      await setFlowKey(tx, ref, { jobId: current, openedAt: 1, closesAt: null, size: 1 });
      await holdForKey(tx, ref, held);
    });
    const free = () =>
      releasableKeys(database.db, ['succeeded', 'failed', 'cancelled', 'stale']).then((keys) =>
        keys.filter((k) => k.key === 'rel'),
      );
    expect(await free()).toEqual([]);
    await transitionJob(database.db, { id: current, event: 'cancel' });
    expect(await free()).toEqual([{ tenantId, kind: 'demo.flow', key: 'rel' }]);
  });
});
