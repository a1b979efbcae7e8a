// Catches checkpoint size rules that drift: a result is kept inline up to and including the
// inline limit (64 KiB by default) and goes to the asset seam only above it; without a seam a
// result is kept up to and including the hard cap, with a warning only above the inline limit;
// a row that points at an asset with no seam configured fails for good; a row without a result
// reads back as `undefined`; a lost lease names the step.
import { formatJobId } from '@sluice/contracts';
import { insertJob, transitionJob, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { storeNow } from '../testing/unit-store.js';
import {
  createUnitCheckpoints,
  INLINE_RESULT_LIMIT_BYTES,
  type LargeResultStore,
  type UnitCheckpointsOptions,
} from './unit-checkpoints.js';

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

/** A string value whose stored JSON (`{"value":"…"}`) is exactly `bytes` long. */
const sized = (bytes: number) => 'x'.repeat(bytes - '{"value":""}'.length);

function seam() {
  const puts: string[] = [];
  const store: LargeResultStore = {
    put: async (p) => (puts.push(p.stepName), `assets/${p.stepName}`),
    get: async () => '{"value":"from asset"}',
  };
  return { store, puts };
}

describeEachDialect('unit checkpoint limits', (ctx) => {
  const cp = (job: { id: string; epoch: number }, extra: Partial<UnitCheckpointsOptions> = {}) =>
    createUnitCheckpoints({
      database: ctx().database,
      jobId: job.id,
      epoch: job.epoch,
      store: storeNow(ctx().database, job),
      onFenced: () => {},
      ...extra,
    });

  it('keeps a result inline up to the 64 KiB default; above it, the asset seam takes it', async () => {
    const job = await runningJob(ctx().database);
    const s = seam();
    const c = cp(job, { largeResults: s.store });
    expect(INLINE_RESULT_LIMIT_BYTES).toBe(65_536);
    await c.run('unit:small', async () => 'tiny');
    await c.run('unit:at', async () => sized(65_536));
    expect(s.puts).toEqual([]);
    await c.run('unit:over', async () => sized(65_537));
    expect(s.puts).toEqual(['unit:over']);
  });

  it('without a seam: kept up to the hard cap inclusive, warned about only above the inline limit', async () => {
    const job = await runningJob(ctx().database);
    const warnings: [string, unknown][] = [];
    const logger = {
      info: () => {},
      error: () => {},
      warn: (m: string, f?: unknown) => void warnings.push([m, f]),
    };
    const c = cp(job, { inlineLimitBytes: 100, hardCapBytes: 300, logger });
    await c.run('unit:a', async () => sized(100));
    expect(warnings).toEqual([]);
    expect(await c.run('unit:b', async () => sized(300))).toHaveLength(300 - 12);
    expect(warnings).toEqual([
      [
        'large step result kept in the units row (no asset store configured)',
        { jobId: job.id, step: 'unit:b', bytes: 300 },
      ],
    ]);
    await expect(c.run('unit:c', async () => sized(301))).rejects.toMatchObject({
      name: 'NonRetriableError',
    });
  });

  it('a row pointing at an asset needs the seam; a row without a result reads as undefined', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const now = new Date().toISOString();
    await database.db
      .insertInto('units')
      .values([
        {
          job_id: job.id,
          unit_key: 'unit:asset',
          result: null,
          asset_key: 'assets/unit:asset',
          attempt_id: 'a',
          epoch: job.epoch,
          created_at: now,
        },
        {
          job_id: job.id,
          unit_key: 'unit:empty',
          result: null,
          asset_key: null,
          attempt_id: 'a',
          epoch: job.epoch,
          created_at: now,
        },
      ])
      .execute();
    await expect(cp(job).run('unit:asset', async () => 'never')).rejects.toMatchObject({
      name: 'NonRetriableError',
      message: expect.stringContaining('"unit:asset" is stored as asset assets/unit:asset'),
    });
    const s = seam();
    expect(await cp(job, { largeResults: s.store }).run('unit:asset', async () => 'never')).toBe(
      'from asset',
    );
    expect(await cp(job).run('unit:empty', async () => 'never')).toBeUndefined();
  });

  it('a lost lease names the step', async () => {
    const job = await runningJob(ctx().database);
    await expect(
      cp({ id: job.id, epoch: job.epoch + 1 }).run('unit:z', async () => 1),
    ).rejects.toMatchObject({
      code: 'LEASE_LOST',
      message: 'step "unit:z": this attempt no longer holds the job',
    });
  });
});
