// Catches double billing and lost or overwritten files when the worker process dies mid-job
// (SIGKILL, no cleanup): the resumed job bills no finished scene again (the providers' own
// ledgers), ends with the same MP4 layout as an uninterrupted render, sweeps the clip a killed
// attempt left in staging, and never overwrites a clip that was already published.
import { assetsForJob, stagingPrefix } from '@sluice/storage';
import { waitFor } from '@sluice/testkit';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutOf, startHarness, TENANT, type Harness } from './harness.js';

const ALL_ONCE = { 'scene-01': 1, 'scene-02': 1, 'scene-03': 1 };

describe('video.render across a killed worker', () => {
  let h: Harness;
  let baseline: ReturnType<typeof layoutOf>;
  let baselineSha: string | undefined;
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  async function stagingKeys(id: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const k of h.app.blobs.list(stagingPrefix(TENANT, id))) keys.push(k);
    return keys;
  }
  async function blobSha(key: string): Promise<string> {
    const body = await h.app.blobs.get(key);
    const hash = createHash('sha256');
    hash.update(new Uint8Array(await new Response(body).arrayBuffer()));
    return hash.digest('hex');
  }

  it('an uninterrupted render (the layout to compare with)', async () => {
    const worker = await h.worker('w-base');
    const id = await h.submit();
    expect((await h.waitState(id, ['succeeded', 'failed', 'needs_review'])).state).toBe(
      'succeeded',
    );
    const got = await h.download(id);
    baseline = layoutOf(await h.probe(got.file as string));
    baselineSha = got.sha256;
    await worker.stop();
  });

  it('SIGKILL after scene 2’s clip: the resumed job re-bills no finished scene and has the same layout', async () => {
    const a = await h.worker('w-crash', { CRASH_AT: 'after-unit-checkpoint@2' });
    const id = await h.submit();
    expect((await a.exited).signal).toBe('SIGKILL');
    const atCrash = h.bills(id);
    expect(atCrash).toEqual({
      speech: { 'scene-01': 1, 'scene-02': 1 },
      video: { 'scene-01': 1, 'scene-02': 1 },
    });

    const b = await h.worker('w-resume');
    const row = await h.waitState(id, ['succeeded', 'failed', 'needs_review', 'dead_letter']);
    expect(row.state).toBe('succeeded');
    expect(row.attempts).toBe(2);
    expect(h.bills(id)).toEqual({ speech: ALL_ONCE, video: ALL_ONCE });

    const got = await h.download(id);
    expect(layoutOf(await h.probe(got.file as string))).toEqual(baseline);
    console.log(
      `crash after scene 2: ledgers at the kill ${JSON.stringify(atCrash)}, after the resume ${JSON.stringify(h.bills(id))}; bytes ${got.sha256 === baselineSha ? 'identical to' : 'differ from'} the uninterrupted render`,
    );
    await b.stop();
  });

  it('a clip orphaned in staging by a killed attempt is swept; no published clip is overwritten', async () => {
    const a = await h.worker('w-orphan', { CRASH_AT: 'after-blob-write-before-publish@2' });
    const id = await h.submit();
    expect((await a.exited).signal).toBe('SIGKILL');
    // Scene 1's clip is published; scene 2's sits in the dead attempt's staging key.
    const before = await assetsForJob(h.app.database.db, id);
    expect(before.map((x) => x.unitKey)).toEqual(['unit:scene-01']);
    const first = before[0] as (typeof before)[number];
    const firstBytes = await blobSha(first.finalKey);
    const orphans = await stagingKeys(id);
    expect(orphans).toHaveLength(1);

    const b = await h.worker('w-sweep');
    expect((await h.waitState(id, ['succeeded', 'failed', 'needs_review'])).state).toBe(
      'succeeded',
    );
    await waitFor(async () => (await stagingKeys(id)).length === 0, {
      timeoutMs: 15_000,
      message: 'staging swept',
    });
    const after = await assetsForJob(h.app.database.db, id);
    expect(after.map((x) => x.unitKey).sort()).toEqual([
      'finalize',
      'unit:scene-01',
      'unit:scene-02',
      'unit:scene-03',
    ]);
    const again = after.find((x) => x.unitKey === 'unit:scene-01');
    expect(again).toEqual(first);
    expect(await blobSha(first.finalKey)).toBe(firstBytes);
    expect(h.bills(id)).toEqual({ speech: ALL_ONCE, video: ALL_ONCE });
    console.log(
      `orphan sweep: staging keys at the kill ${orphans.length}, after the resume 0; ledgers ${JSON.stringify(h.bills(id))}`,
    );
    await b.stop();
  });
});
