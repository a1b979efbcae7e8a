// Catches checkpoints that lose or leak work: a stored result must be returned instead of
// running the step again, looked up by job AND step name (never another job's or another
// unit's), stored only by the attempt that holds the job, and results too large for a row refused (or handed to the asset seam) instead of bloating it.
import { formatJobId } from '@sluice/contracts';
import { getUnit, insertJob, transitionJob, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { createUnitCheckpoints, type UnitCheckpointsOptions } from './unit-checkpoints.js';
import { testHooks } from '../testing/seeded-bugs.js';
import { storeNow } from '../testing/unit-store.js';

async function runningJob(database: SluiceDatabase): Promise<{ id: string; epoch: number }> {
  const id = formatJobId('v1');
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId: 'acme',
      kind: 'x.cp',
      version: 'v1',
      input: {},
      inputHash: id,
      maxAttempts: 3,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
  });
  // A retried attempt (epoch 2): the first attempt skips reading checkpoints by design, and
  // these tests read back what the job stored.
  await database.transaction((tx) => transitionJob(tx, { id, event: 'start' }));
  await database.transaction((tx) => transitionJob(tx, { id, event: 'retry' }));
  const r = await database.transaction((tx) => transitionJob(tx, { id, event: 'start' }));
  if (!r.ok || r.job.epoch !== 2) throw new Error('start failed');
  return { id, epoch: r.job.epoch };
}

describeEachDialect('unit checkpoints', (ctx) => {
  const store = (
    job: { id: string; epoch: number },
    extra: Partial<UnitCheckpointsOptions> = {},
  ) => {
    let fenced = 0;
    const cp = createUnitCheckpoints({
      database: ctx().database,
      jobId: job.id,
      epoch: job.epoch,
      store: storeNow(ctx().database, job),
      hooks: testHooks(),
      onFenced: () => fenced++,
      ...extra,
    });
    return { cp, fenced: () => fenced };
  };

  it('stores a result the moment it exists and reuses it on the next attempt', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const first = store(job).cp;
    let runs = 0;
    const work = async () => (runs++, { words: 3, at: new Date(0) });
    expect(await first.run('unit:u0', work)).toEqual({ words: 3, at: '1970-01-01T00:00:00.000Z' });
    expect(first.reused('unit:u0')).toBe(false);
    expect(await getUnit(database.db, job.id, 'unit:u0')).toMatchObject({ epoch: job.epoch });

    // A later attempt of the same job (the row moved to a new epoch).
    await database.transaction((tx) => transitionJob(tx, { id: job.id, event: 'retry' }));
    const again = await database.transaction((tx) =>
      transitionJob(tx, { id: job.id, event: 'start' }),
    );
    const second = store({ id: job.id, epoch: again.job?.epoch ?? 0 }).cp;
    expect(await second.run('unit:u0', work)).toEqual({ words: 3, at: '1970-01-01T00:00:00.000Z' });
    expect(second.reused('unit:u0')).toBe(true);
    expect(runs).toBe(1);
    // undefined and null come back as they went in.
    expect(await second.run('unit:u1', async () => undefined)).toBeUndefined();
    expect(await second.run('unit:u2', async () => null)).toBeNull();
  });

  it('a job approved after review (attempts reset to 0) still reuses its checkpoints', async () => {
    // The first attempt skips the checkpoint read by its epoch, never by its attempt number:
    // approve resets the attempt count, and the next attempt is "attempt 1" again.
    const { database } = ctx();
    const job = await runningJob(database);
    let runs = 0;
    await store(job).cp.run('unit:u0', async () => (runs++, 'paid once'));
    const tx = (req: Parameters<typeof transitionJob>[1]) =>
      database.transaction((t) => transitionJob(t, req));
    await tx({ id: job.id, event: 'review', epoch: job.epoch, reason: 'AMBIGUOUS' });
    await tx({ id: job.id, event: 'approve', resetAttempts: true });
    const again = await tx({ id: job.id, event: 'start' });
    if (!again.ok) throw new Error('restart failed');
    expect(again.job).toMatchObject({ attempts: 1, epoch: job.epoch + 1 });
    const next = store({ id: job.id, epoch: again.job.epoch }).cp;
    expect(await next.run('unit:u0', async () => (runs++, 'paid twice'))).toBe('paid once');
    expect(next.reused('unit:u0')).toBe(true);
    expect(runs).toBe(1);
  });

  it('looks a checkpoint up by job AND step name', async () => {
    const { database } = ctx();
    const a = await runningJob(database);
    const b = await runningJob(database);
    await store(a).cp.run('unit:u0', async () => 'a-u0');
    await store(a).cp.run('unit:u1', async () => 'a-u1');
    const cpB = store(b).cp;
    expect(await cpB.run('unit:u0', async () => 'b-u0')).toBe('b-u0');
    expect(cpB.reused('unit:u0')).toBe(false);
    const cpA = store(a).cp;
    expect(await cpA.run('unit:u1', async () => 'never')).toBe('a-u1');
    expect(await cpA.run('unit:u2', async () => 'a-u2')).toBe('a-u2');
  });

  it('a fenced attempt stores nothing and is told it lost the job', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const stale = store({ id: job.id, epoch: job.epoch - 1 });
    await expect(stale.cp.run('unit:u0', async () => 1)).rejects.toMatchObject({
      code: 'LEASE_LOST',
    });
    expect(stale.fenced()).toBe(1);
    expect(await getUnit(database.db, job.id, 'unit:u0')).toBeUndefined();
  });

  it('refuses results above the hard cap; hands large ones to the asset seam', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const big = 'x'.repeat(2000);
    const capped = store(job, { inlineLimitBytes: 100, hardCapBytes: 1000 }).cp;
    await expect(capped.run('unit:big', async () => big)).rejects.toMatchObject({
      name: 'NonRetriableError',
      message: expect.stringContaining('need the asset store'),
    });
    expect(await capped.run('unit:mid', async () => 'y'.repeat(500))).toHaveLength(500);

    const blobs = new Map<string, string>();
    const seam = {
      put: async (p: { jobId: string; stepName: string; json: string }) => {
        const key = `assets/${p.jobId}/${p.stepName}`;
        blobs.set(key, p.json);
        return key;
      },
      get: async (key: string) => blobs.get(key) ?? '',
    };
    const withAssets = store(job, {
      inlineLimitBytes: 100,
      hardCapBytes: 1000,
      largeResults: seam,
    });
    expect(await withAssets.cp.run('unit:huge', async () => big)).toBe(big);
    const row = await getUnit(database.db, job.id, 'unit:huge');
    expect(row).toMatchObject({ result: null, assetKey: `assets/${job.id}/unit:huge` });
    const reread = store(job, { largeResults: seam }).cp;
    expect(await reread.run('unit:huge', async () => 'never')).toBe(big);
  });
});
