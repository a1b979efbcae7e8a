// Catches an MP4 that nobody checked would play: a 3-scene script is really synthesised
// (espeak-ng) and rendered (ffmpeg) by provider processes, and ffprobe's figures of the file a
// person downloads are asserted; and a final file that is broken after assembly is refused by
// finalize and never published as the result.
import { createApiKey, assetsForJob } from '@sluice/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT, startHarness, type Harness } from './harness.js';

describe('video.render on real media', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('a 3-scene script renders to an MP4 that ffprobe verifies, billed once per scene', async () => {
    const started = Date.now();
    const worker = await h.worker('w-ok');
    const handle = await h.client.submit('video.render', SCRIPT);
    const result = await handle.result();
    console.log(`3-scene render: ${Date.now() - started} ms (worker start included)`);

    const speechSec = result.scenes.reduce((s, c) => s + c.audioSec, 0);
    expect(result.scenes).toHaveLength(3);
    expect(result.version).toBe('v1');
    expect(Math.abs(result.asset.durationSec - speechSec) / speechSec).toBeLessThanOrEqual(0.05);
    expect(result.downloadPath).toBe(`/video/jobs/${handle.id}/final.mp4`);

    const got = await h.download(handle.id);
    expect(got.status).toBe(200);
    expect(got.sha256).toBe(result.asset.sha256);
    const { probe, warnings } = await h.probe(got.file as string);
    expect(warnings).toBe('');
    expect(probe?.format.format_name).toContain('mp4');
    expect(probe?.format.size).toBe(result.asset.size);
    const video = probe?.streams.filter((s) => s.codec_type === 'video') ?? [];
    const audio = probe?.streams.filter((s) => s.codec_type === 'audio') ?? [];
    expect(video.map((s) => [s.codec_name, s.width, s.height])).toEqual([['h264', 320, 180]]);
    expect(audio.map((s) => s.codec_name)).toEqual(['aac']);
    expect(probe?.streams).toHaveLength(2);
    const duration = probe?.format.duration ?? 0;
    expect(Math.abs(duration - speechSec) / speechSec).toBeLessThanOrEqual(0.05);
    // 10 fps: every declared frame decodes, and there are about duration × 10 of them.
    expect(video[0]?.nb_read_frames).toBe(video[0]?.nb_frames);
    expect(video[0]?.nb_read_frames).toBeGreaterThanOrEqual(Math.floor(speechSec * 10) - 1);
    expect(audio[0]?.nb_read_frames).toBe(audio[0]?.nb_frames);
    console.log(
      `ffprobe: ${duration.toFixed(3)} s (speech ${speechSec.toFixed(3)} s), ${video[0]?.nb_read_frames} video + ${audio[0]?.nb_read_frames} audio frames, ${probe?.format.size} bytes`,
    );

    expect(h.bills(handle.id)).toEqual({
      speech: { 'scene-01': 1, 'scene-02': 1, 'scene-03': 1 },
      video: { 'scene-01': 1, 'scene-02': 1, 'scene-03': 1 },
    });
    // Progress per scene and step, in order, then the job's own steps.
    const steps = await h.progress(handle.id);
    for (const scene of [1, 2, 3]) {
      expect(steps.filter((s) => s.scene === scene).map((s) => s.step)).toEqual([
        'speech',
        'render',
        'download',
        'done',
      ]);
    }
    expect(steps.filter((s) => s.scene === 0).map((s) => s.step)).toEqual(['concat', 'verify']);
    await worker.stop();
  });

  it('the MP4 route answers only the job tenant’s key; the page is served', async () => {
    const id = (await h.client.jobs.list({ kind: 'video.render', state: 'succeeded' })).items[0]
      ?.id;
    expect(id).toBeDefined();
    const other = await createApiKey(h.app.database.db, 'other-tenant');
    expect((await h.download(id as string, other.key)).status).toBe(404);
    expect((await h.download(id as string, 'sk_not_a_key')).status).toBe(401);
    expect((await h.download('v1-nosuchjob')).status).toBe(404);
    const page = await fetch(`${h.app.url}/video`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/final.mp4');
  });

  it('a final MP4 cut short after assembly fails finalize and is never published', async () => {
    const worker = await h.worker('w-corrupt', { CORRUPT_FINAL: '1' });
    const id = await h.submit();
    const row = await h.waitState(id, ['failed', 'succeeded', 'needs_review', 'dead_letter']);
    expect(row.state).toBe('failed');
    const message = JSON.stringify(row.error);
    expect(message).toContain('the final MP4 failed verification');
    expect(message).toMatch(/declared frames decode/);
    const assets = await assetsForJob(h.app.database.db, id);
    expect(assets.map((a) => `${a.unitKey}/${a.name}`).sort()).toEqual([
      'unit:scene-01/clip.mp4',
      'unit:scene-02/clip.mp4',
      'unit:scene-03/clip.mp4',
    ]);
    expect(row.output).toBeNull();
    expect((await h.download(id)).status).toBe(404);
    // Refused once, not retried: each scene was billed once.
    expect(Object.values(h.bills(id).speech)).toEqual([1, 1, 1]);
    await worker.stop();
  });
});
