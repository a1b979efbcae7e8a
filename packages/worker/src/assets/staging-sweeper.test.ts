// Catches a sweeper that deletes live or published work, or leaves dead attempts' staging blobs
// forever: only staging keys of dead attempts go, whatever else the folder holds.
import { stagingKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCounters } from '../metrics.js';
import { createBlobFolder, startJob, takeOver, type BlobFolder } from '../testing/asset-fixture.js';
import { createAssetWriter } from './asset-writer.js';
import { sweepStaging } from './staging-sweeper.js';
import { testHooks } from '../testing/seeded-bugs.js';

async function* bytes(s: string) {
  yield Buffer.from(s);
}

describeEachDialect('staging sweeper', (ctx) => {
  let folder: BlobFolder;
  beforeAll(() => {
    folder = createBlobFolder();
  });
  afterAll(() => folder.dispose());

  it('deletes staging blobs of dead attempts only, never live, owned or published ones', async () => {
    const { database } = ctx();
    const { blobs } = folder;
    const dead = await startJob(database);
    const live = await takeOver(database, dead);
    const finished = await startJob(database);
    const published = await createAssetWriter({
      database,
      blobs,
      job: live,
      onFenced: () => {},
    }).write('unit:u0', { name: 'keep.bin', body: 'published' });
    await database.db
      .updateTable('jobs')
      .set({ state: 'succeeded', attempt_id: finished.attemptId })
      .where('id', '=', finished.id)
      .execute();

    const k = {
      deadA: stagingKey('acme', dead.id, dead.attemptId, 'one'),
      deadB: stagingKey('acme', dead.id, dead.attemptId, 'two'),
      live: stagingKey('acme', live.id, live.attemptId, 'three'),
      finished: stagingKey('acme', finished.id, finished.attemptId, 'four'),
      gone: stagingKey('acme', 'v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', 'whoever', 'five'),
      stray: 'staging/not-a-staging-key',
    };
    for (const key of Object.values(k)) await blobs.put(key, bytes(key));
    // A dead attempt's key that a live ownership row names (it cannot happen today; the
    // sweeper must still leave such a key alone).
    const ownedByLive = stagingKey('acme', live.id, dead.attemptId, 'six');
    await blobs.put(ownedByLive, bytes('owned'));
    await database.db
      .insertInto('asset_owners')
      .values({
        final_key: `t/acme/j/${live.id}/assets/x/owned.bin`,
        job_id: live.id,
        unit_key: 'unit:u1',
        name: 'owned.bin',
        attempt_id: live.attemptId,
        epoch: live.epoch,
        staging_key: ownedByLive,
        created_at: new Date().toISOString(),
      })
      .execute();

    const counters = createCounters();
    const swept = await sweepStaging({ database, blobs, counters, hooks: testHooks() });
    expect(swept.sort()).toEqual([k.deadA, k.deadB, k.finished, k.gone].sort());
    expect(counters.stagingSwept).toBe(4);
    expect(await folder.keys('staging/')).toEqual([k.live, k.stray, ownedByLive].sort());
    expect((await folder.bytes(published.key))?.toString()).toBe('published');
    // A second sweep finds nothing more to do.
    expect(await sweepStaging({ database, blobs, hooks: testHooks() })).toEqual([]);
  });

  it('deletes no more than `limit` keys per sweep and finishes on the next, live keys first or not', async () => {
    const { database } = ctx();
    const dead = await startJob(database);
    await takeOver(database, dead);
    for (let i = 0; i < 5; i++) {
      await folder.blobs.put(stagingKey('acme', dead.id, dead.attemptId, `k${i}`), bytes('x'));
    }
    expect(
      await sweepStaging({ database, blobs: folder.blobs, limit: 3, hooks: testHooks() }),
    ).toHaveLength(3);
    expect(
      await sweepStaging({ database, blobs: folder.blobs, limit: 3, hooks: testHooks() }),
    ).toHaveLength(2);
  });
});
