// Catches a speech synthesis billed twice after one lost answer: the provider synthesises and
// bills, then the connection drops (commit-then-drop). The call is sync with no idempotency key
// (ambiguous), so the job must park in needs_review instead of retrying; a person's approval
// authorises exactly one more synthesis, and the provider's ledger shows exactly one extra bill.
import { callsForJob, listEvents } from '@sluice/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

describe('video.render when a speech answer is lost', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('commit-then-drop → needs_review; approve → exactly one authorised extra bill', async () => {
    await h.speech.setFaults([{ fault: 'commit-then-drop', unitKey: 'scene-02' }]);
    const worker = await h.worker('w-review');
    const id = await h.submit();
    const parked = await h.waitState(id, ['needs_review', 'succeeded', 'failed']);
    expect(parked.state).toBe('needs_review');
    const atReview = h.bills(id);
    // Scene 2's speech was billed (then its answer lost); its render was never submitted.
    expect(atReview.speech['scene-02']).toBe(1);
    expect(atReview.video['scene-02']).toBeUndefined();

    expect((await h.client.review.list()).items.map((j) => j.id)).toContain(id);
    const events = await listEvents(h.app.database.db, id, 0);
    const review = events.findLast((e) => e.type === 'needs_review');
    expect(review && 'unitKey' in review ? review.unitKey : undefined).toBe('scene-02');
    const approved = await h.client.review.approve(
      id,
      'one more synthesis of scene 2',
      'video.render',
    );
    const result = await approved.result();
    expect(result.scenes).toHaveLength(3);

    const bills = h.bills(id);
    expect(bills).toEqual({
      speech: { 'scene-01': 1, 'scene-02': 2, 'scene-03': 1 },
      video: { 'scene-01': 1, 'scene-02': 1, 'scene-03': 1 },
    });
    const authorised = (await callsForJob(h.app.database.db, id)).filter(
      (r) => r.outcome === 'authorised',
    );
    expect(authorised.map((r) => [r.unitKey, r.callName])).toEqual([['scene-02', 'speech']]);
    console.log(
      `commit-then-drop: speech ledger at review ${JSON.stringify(atReview.speech)}, after approval ${JSON.stringify(bills.speech)}; video ${JSON.stringify(bills.video)}`,
    );
    await worker.stop();
  });
});
