// Catches a large unit result bloating the units row or lost between attempts: above the inline
// limit the result goes through the asset protocol (the row keeps only the asset key), and a
// later attempt reads it back from the asset instead of running the unit again.
import { getAsset, getUnit } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUnitCheckpoints } from '../checkpoints/unit-checkpoints.js';
import { createBlobFolder, startJob, takeOver, type BlobFolder } from '../testing/asset-fixture.js';
import { createAttemptAssets } from './attempt-assets.js';
import { storeNow } from '../testing/unit-store.js';

describeEachDialect('large unit results', (ctx) => {
  let folder: BlobFolder;
  beforeAll(() => {
    folder = createBlobFolder();
  });
  afterAll(() => folder.dispose());

  const checkpoints = (job: Awaited<ReturnType<typeof startJob>>) =>
    createUnitCheckpoints({
      database: ctx().database,
      jobId: job.id,
      epoch: job.epoch,
      store: storeNow(ctx().database, job),
      onFenced: () => {},
      largeResults: createAttemptAssets({
        database: ctx().database,
        blobs: folder.blobs,
        job,
        onFenced: () => {},
      }).largeResults,
    });

  it('stores a result over the inline limit as an asset and reuses it next attempt', async () => {
    const { database } = ctx();
    const job = await startJob(database);
    const big = { rows: Array.from({ length: 5000 }, (_, i) => `row ${i} ${'x'.repeat(10)}`) };
    let runs = 0;
    expect(await checkpoints(job).run('unit:u0', async () => (runs++, big))).toEqual(big);
    const row = await getUnit(database.db, job.id, 'unit:u0');
    expect(row?.result).toBeNull();
    expect(row?.assetKey).toMatch(/\/result\.json$/);
    const asset = await getAsset(database.db, row?.assetKey as string);
    expect(asset).toMatchObject({ unitKey: 'checkpoint:unit:u0', contentType: 'application/json' });
    expect(asset?.size).toBeGreaterThan(64 * 1024);

    const next = checkpoints(await takeOver(database, job));
    expect(await next.run('unit:u0', async () => (runs++, 'never'))).toEqual(big);
    expect(next.reused('unit:u0')).toBe(true);
    expect(runs).toBe(1);
  });
});
