// Catches a zombie parent starting a child: an attempt whose job was taken over (its lease
// lapsed, another holder claimed the job at a new epoch) calls `ctx.children.start`. The start
// is fenced on the parent attempt's epoch in the same transaction as the child's insert, so the
// zombie gets LEASE_LOST and writes no child — whatever key it uses (a key the new holder never
// uses would otherwise leave an orphan child running beside the real ones). The new holder
// starts its child as usual, and a cancelled parent starts nothing either.
import { defineJob, SluiceError } from '@sluice/contracts';
import { transitionJob, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect, takenOverTestJob } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createChildJobs } from '../waits/child-jobs.js';

const LEASE_MS = 300;
const child = defineJob({
  kind: 'xp.zchild',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ n: z.number().int() }),
});

/** A parent claimed by A, claimed again by B once A's lease lapsed. */
const takenOverParent = (database: SluiceDatabase) =>
  takenOverTestJob(database, 'xp.zparent', LEASE_MS);

function childJobs(database: SluiceDatabase, job: { id: string; epoch: number }) {
  const seen = { fenced: 0, started: 0 };
  const jobs = createChildJobs({
    database,
    job,
    assertCapable: () => {},
    keyOf: (base, key) => `${base}:${key ?? ''}`,
    wait: () => Promise.reject(new Error('not waited on here')),
    childKey: (key) => key,
    started: () => void seen.started++,
    onFenced: () => void seen.fenced++,
    flush: () => Promise.resolve(),
  });
  return { jobs, seen };
}

const childrenOf = async (database: SluiceDatabase, id: string) =>
  (await database.db.selectFrom('jobs').select('id').where('parent_id', '=', id).execute()).map(
    (r) => r.id,
  );

describeEachDialect('zombie parent starts no child', (ctx) => {
  it('an attempt whose job was taken over gets LEASE_LOST and writes no child, whatever its key', async () => {
    const { database } = ctx();
    const { id, zombie, holder } = await takenOverParent(database);
    expect(holder).toBe(zombie + 1);
    const a = childJobs(database, { id, epoch: zombie });
    for (const key of ['only', 'zombie-only']) {
      const err = await a.jobs.start(child, { n: 1 }, { key }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SluiceError);
      expect((err as SluiceError).code).toBe('LEASE_LOST');
    }
    expect(a.seen).toEqual({ fenced: 2, started: 0 });
    expect(await childrenOf(database, id)).toEqual([]);

    // The holder's start is not disturbed: one child, and the zombie still adds none after it.
    const b = childJobs(database, { id, epoch: holder });
    const started = await b.jobs.start(child, { n: 2 }, { key: 'only' });
    expect(b.seen).toEqual({ fenced: 0, started: 1 });
    await a.jobs.start(child, { n: 3 }, { key: 'zombie-only' }).catch(() => undefined);
    expect(await childrenOf(database, id)).toEqual([started.id]);
  });

  it('a parent cancelled under its attempt starts no child', async () => {
    const { database } = ctx();
    const { id, holder } = await takenOverParent(database);
    const cancelled = await database.transaction((tx) =>
      transitionJob(tx, { id, event: 'cancel' }),
    );
    expect(cancelled.ok).toBe(true);
    const b = childJobs(database, { id, epoch: holder });
    const err = await b.jobs.start(child, { n: 1 }, { key: 'only' }).catch((e: unknown) => e);
    expect((err as SluiceError).code).toBe('LEASE_LOST');
    expect(await childrenOf(database, id)).toEqual([]);
  });
});
