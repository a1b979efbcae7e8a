// Catches a render paid twice or a failure swallowed when the video provider misbehaves: a
// provider killed mid-render finishes the render it accepted after a restart and the job polls
// the same external id (one bill); a render the provider reports failed fails the job, is not
// submitted again, and names the cause. And a script the schema refuses writes nothing.
import { isSluiceApiError } from '@sluice/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT, startHarness, type Harness } from './harness.js';

describe('video.render when the video provider fails', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('a provider killed mid-render resumes the accepted render: polled to the end, billed once', async () => {
    // Polls every 600 ms: ten failed polls in a row end an attempt, so the budget covers a restart.
    const worker = await h.worker('w-crash-render', { VIDEO_POLL_MS: '600' });
    await h.video.setFaults([{ fault: 'crash-mid-render', unitKey: 'scene-02' }]);
    const id = await h.submit();
    await h.video.exited();
    await h.video.restart();
    const row = await h.waitState(id, ['succeeded', 'failed', 'needs_review', 'dead_lettered']);
    expect(row.state).toBe('succeeded');
    expect(h.bills(id)).toEqual({
      speech: { 'scene-01': 1, 'scene-02': 1, 'scene-03': 1 },
      video: { 'scene-01': 1, 'scene-02': 1, 'scene-03': 1 },
    });
    console.log(
      `crash-mid-render: ${row.attempts} attempt(s), ledgers ${JSON.stringify(h.bills(id))}`,
    );
    await worker.stop();
  });

  it('a render the provider reports failed fails the job with its cause and is not resubmitted', async () => {
    const worker = await h.worker('w-render-fail');
    await h.video.setFaults([{ fault: 'render-fail', unitKey: 'scene-01' }]);
    const id = await h.submit();
    const row = await h.waitState(id, ['succeeded', 'failed', 'needs_review', 'dead_lettered']);
    expect(row.state).toBe('failed');
    expect(JSON.stringify(row.error)).toMatch(/scene-01.*external job .* failed|job .* failed/);
    expect(h.bills(id).video['scene-01']).toBe(1);
    console.log(
      `render-fail: ${JSON.stringify(row.error).slice(0, 240)}; ledgers ${JSON.stringify(h.bills(id))}`,
    );
    await worker.stop();
  });

  it('a script the input schema refuses is answered BAD_REQUEST and writes no job', async () => {
    const before = (await h.client.jobs.list({ kind: 'video.render' })).items.length;
    const bad = [
      { ...SCRIPT, scenes: [] },
      { ...SCRIPT, title: '' },
      { ...SCRIPT, scenes: [{ text: 'x'.repeat(401) }] },
    ];
    for (const input of bad) {
      const error = await h.client.submit('video.render', input).catch((e: unknown) => e);
      expect(isSluiceApiError(error) && error.code).toBe('BAD_REQUEST');
    }
    expect((await h.client.jobs.list({ kind: 'video.render' })).items).toHaveLength(before);
  });
});
