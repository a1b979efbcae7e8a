// Catches asset writes that lose, orphan or overwrite a file: the row only after the blob, a
// published key reused (body not read) and never rewritten, a staging key deleted only by its
// own attempt, an attempt that lost its job publishing nothing, and a final key left by a
// crashed attempt adopted with its true size and hash. Real databases, a real blob folder.
import { isNonRetriableError, isSluiceError } from '@sluice/contracts';
import { assetsForJob, getAsset, stagingPrefix } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCounters } from '../metrics.js';
import {
  createBlobFolder,
  ghostRows,
  sha256,
  startJob,
  takeOver,
  type BlobFolder,
  type RunningAttempt,
} from '../testing/asset-fixture.js';
import { testHooks } from '../testing/seeded-bugs.js';
import { createAssetWriter } from './asset-writer.js';
import { createAttemptAssets } from './attempt-assets.js';

function gated(first: string, rest: string): { body: AsyncIterable<Uint8Array>; open(): void } {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  return {
    body: (async function* () {
      yield Buffer.from(first);
      await gate;
      yield Buffer.from(rest);
    })(),
    open,
  };
}

describeEachDialect('asset writer', (ctx) => {
  let folder: BlobFolder;
  beforeAll(() => {
    folder = createBlobFolder();
  });
  afterAll(() => folder.dispose());

  const writer = (job: RunningAttempt) => {
    const counters = createCounters();
    let fenced = 0;
    const w = createAssetWriter({
      hooks: testHooks(),
      database: ctx().database,
      blobs: folder.blobs,
      job,
      onFenced: () => fenced++,
      counters,
    });
    return { w, counters, fenced: () => fenced };
  };
  const staging = (job: RunningAttempt) => folder.keys(stagingPrefix(job.tenantId, job.id));

  it('streams to staging, publishes, then inserts the row with the true size and hash', async () => {
    const job = await startJob(ctx().database);
    const { w, counters } = writer(job);
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('hello '));
        c.enqueue(new TextEncoder().encode('world'));
        c.close();
      },
    });
    const out = await w.write('unit:u0', { name: 'a.txt', body, contentType: 'text/plain' });
    expect(out).toMatchObject({ size: 11, sha256: sha256('hello world'), reused: false });
    expect(out.key).toMatch(new RegExp(`^t/acme/j/${job.id}/assets/[0-9a-f]{32}/a\\.txt$`));
    expect((await folder.bytes(out.key))?.toString()).toBe('hello world');
    expect(await getAsset(ctx().database.db, out.key)).toMatchObject({
      size: 11,
      contentType: 'text/plain',
      attemptId: job.attemptId,
      unitKey: 'unit:u0',
    });
    expect(await staging(job)).toEqual([]);
    expect(counters).toMatchObject({ assetsPublished: 1, assetsReused: 0 });
    expect(await ghostRows(ctx().database, folder, job.id)).toEqual([]);
  });

  it('reuses a published key without reading the body, in this and every later attempt', async () => {
    const { database } = ctx();
    const job = await startJob(database);
    const first = await writer(job).w.write('unit:u0', { name: 'r.bin', body: 'first bytes' });

    let pulled = 0;
    let cancelled = 0;
    const untouched = () =>
      new ReadableStream<Uint8Array>(
        { pull: () => void pulled++, cancel: () => void cancelled++ },
        { highWaterMark: 0 }, // pulled only when read
      );
    const again = writer(job);
    expect(await again.w.write('unit:u0', { name: 'r.bin', body: untouched() })).toEqual({
      ...first,
      reused: true,
    });
    const later = writer(await takeOver(database, job));
    const second = await later.w.write('unit:u0', { name: 'r.bin', body: untouched() });
    expect(second).toEqual({ ...first, reused: true });
    expect(pulled).toBe(0);
    expect(cancelled).toBe(2);
    expect(later.counters.assetsReused).toBe(1);
    expect((await folder.bytes(first.key))?.toString()).toBe('first bytes');
    expect(await assetsForJob(database.db, job.id)).toHaveLength(1);
  });

  it('an attempt that lost its job before the ownership row writes nothing', async () => {
    const { database } = ctx();
    const job = await startJob(database);
    await takeOver(database, job);
    const a = writer(job);
    const err = await a.w.write('unit:u0', { name: 'z.bin', body: 'zombie' }).catch((e) => e);
    expect(isSluiceError(err) && err.code).toBe('LEASE_LOST');
    expect(a.fenced()).toBe(1);
    expect(await staging(job)).toEqual([]);
    expect(await assetsForJob(database.db, job.id)).toEqual([]);
  });

  it('a paused attempt that lost ownership mid-stream deletes only its own staging key', async () => {
    const { database } = ctx();
    const jobA = await startJob(database);
    const a = writer(jobA);
    const slowA = gated('zombie ', 'bytes');
    const writingA = a.w.write('unit:u0', { name: 'v.bin', body: slowA.body }).catch((e) => e);
    await expect.poll(() => staging(jobA)).toEqual([]); // the temp file is not a staging key yet
    await new Promise((r) => setTimeout(r, 50));

    // Another attempt takes the job and claims the key, but has not published yet.
    const jobB = await takeOver(database, jobA);
    const b = writer(jobB);
    const slowB = gated('winner ', 'bytes');
    const writingB = b.w.write('unit:u0', { name: 'v.bin', body: slowB.body });
    await new Promise((r) => setTimeout(r, 50));

    slowA.open();
    const errA = await writingA;
    expect(isSluiceError(errA) && errA.code).toBe('LEASE_LOST');
    expect(a.fenced()).toBe(1);
    expect(await staging(jobA)).toEqual([]);

    slowB.open();
    const won = await writingB;
    expect((await folder.bytes(won.key))?.toString()).toBe('winner bytes');
    expect(won).toMatchObject({ reused: false, sha256: sha256('winner bytes') });
    expect(await ghostRows(database, folder, jobA.id)).toEqual([]);
    expect(await folder.keys(stagingPrefix(jobA.tenantId, jobA.id))).toEqual([]);
  });

  it('a paused attempt resumed after another published reuses it and overwrites nothing', async () => {
    const { database } = ctx();
    const jobA = await startJob(database);
    const a = writer(jobA);
    const slowA = gated('zombie ', 'bytes');
    const writingA = a.w.write('unit:u0', { name: 'p.bin', body: slowA.body });
    await new Promise((r) => setTimeout(r, 50));
    const jobB = await takeOver(database, jobA);
    const won = await writer(jobB).w.write('unit:u0', { name: 'p.bin', body: 'winner bytes' });
    slowA.open();
    // The check finds the asset row first: the zombie gets the published asset, writes nothing.
    expect(await writingA).toEqual({ ...won, reused: true });
    expect((await folder.bytes(won.key))?.toString()).toBe('winner bytes');
    expect(await staging(jobA)).toEqual([]);
    expect(await assetsForJob(database.db, jobA.id)).toHaveLength(1);
  });

  it('adopts a final key a crashed attempt published without its row (true size and hash)', async () => {
    const { database } = ctx();
    const job = await startJob(database);
    const { w, counters } = writer(job);
    // What a crash between publish and the row leaves: the final blob, no row. Learn its key
    // from a write under another name, then place the orphan at the sibling key.
    const probe = await w.write('unit:u0', { name: 'probe.bin', body: 'x' });
    const finalKey = probe.key.replace(/probe\.bin$/, 'o.bin');
    await folder.blobs.put(
      finalKey,
      (async function* () {
        yield Buffer.from('crashed attempt bytes');
      })(),
    );
    const out = await w.write('unit:u0', { name: 'o.bin', body: 'new attempt bytes!' });
    expect(out).toEqual({
      key: finalKey,
      size: 21,
      sha256: sha256('crashed attempt bytes'),
      reused: true,
    });
    expect((await folder.bytes(finalKey))?.toString()).toBe('crashed attempt bytes');
    expect(counters.assetsReused).toBe(1);
    expect(await staging(job)).toEqual([]);
    expect(await ghostRows(database, folder, job.id)).toEqual([]);
  });

  it('refuses a bad name or an oversized body for good, leaving nothing behind', async () => {
    const job = await startJob(ctx().database);
    const w = createAssetWriter({
      hooks: testHooks(),
      database: ctx().database,
      blobs: folder.blobs,
      job,
      onFenced: () => {},
      maxBytes: 8,
    });
    const bad = await w.write('unit:u0', { name: '../x', body: 'a' }).catch((e) => e);
    expect(isNonRetriableError(bad)).toBe(true);
    const big = await w.write('unit:u0', { name: 'big.bin', body: '0123456789' }).catch((e) => e);
    expect(isNonRetriableError(big)).toBe(true);
    expect(await staging(job)).toEqual([]);
    expect(await assetsForJob(ctx().database.db, job.id)).toEqual([]);
  });

  it('opens only published assets of its own tenant', async () => {
    const { database } = ctx();
    const job = await startJob(database);
    const { w } = writer(job);
    const out = await w.write('finalize', { name: 'final.txt', body: 'render' });
    expect(await new Response(await w.open(out.key)).text()).toBe('render');
    const other = writer(await startJob(database, 'other'));
    for (const key of [out.key, `t/acme/j/${job.id}/assets/nope/x`, 'staging/x']) {
      const err = await other.w.open(key).catch((e) => e);
      expect(isSluiceError(err) && err.code).toBe('NOT_FOUND');
    }
  });

  it('scopes per stage: units and finalize write, prepare and apply only read', async () => {
    const { database } = ctx();
    const job = await startJob(database);
    const assets = createAttemptAssets({
      hooks: testHooks(),
      database,
      blobs: folder.blobs,
      job,
      onFenced: () => {},
    });
    const u0 = await assets.forUnit('u0').write({ name: 'same.txt', body: 'unit' });
    const fin = await assets.forStage('finalize').write({ name: 'same.txt', body: 'final' });
    expect(u0.key).not.toBe(fin.key);
    for (const stage of ['prepare', 'apply'] as const) {
      const err = await assets
        .forStage(stage)
        .write({ name: 'x.txt', body: 'x' })
        .catch((e) => e);
      expect(isNonRetriableError(err)).toBe(true);
      expect(await new Response(await assets.forStage(stage).open(u0.key)).text()).toBe('unit');
    }
    const large = assets.largeResults;
    const key = await large?.put({ jobId: job.id, stepName: 'unit:u0', json: '{"value":[1,2]}' });
    expect(await large?.get(key as string)).toBe('{"value":[1,2]}');
    const none = createAttemptAssets({
      hooks: testHooks(),
      database,
      blobs: undefined,
      job,
      onFenced: () => {},
    });
    const err = await none
      .forUnit('u0')
      .write({ name: 'x', body: 'x' })
      .catch((e) => e);
    expect(isSluiceError(err) && err.code).toBe('INVALID_CONFIG');
    expect(none.largeResults).toBeUndefined();
  });
});
