// The fold the hooks share: a replayed event changes nothing, a requeue clears the parked
// reason and error, and progress and finished units come from the events alone.
import { describe, expect, it } from 'vitest';
import type { JobWatchEvent } from '@sluice/client';
import { emptySnapshot, foldEvent } from './job-snapshot.js';

const at = '2026-12-01T00:00:00.000Z';
const base = { jobId: 'v1-x', at };
const events: JobWatchEvent[] = [
  { ...base, seq: 1, type: 'state', from: null, to: 'queued' },
  { ...base, seq: 2, type: 'state', from: 'queued', to: 'running', attempt: 1 },
  { ...base, seq: 3, type: 'progress', data: { step: 1 } },
  { ...base, seq: 4, type: 'unit_done', unitKey: 'u1' },
  {
    ...base,
    seq: 5,
    type: 'needs_review',
    from: 'running',
    to: 'needs_review',
    reason: 'lost answer',
  },
  { ...base, seq: 6, type: 'state', from: 'needs_review', to: 'queued' },
];

describe('foldEvent', () => {
  it('replayed events (seq at or below the last one) change nothing', () => {
    const once = events.reduce(foldEvent, emptySnapshot('v1-x'));
    const twice = events.reduce(foldEvent, once);
    expect(twice).toBe(once);
    expect(once.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a parked job is settled with its reason; a requeue clears both', () => {
    const parked = events.slice(0, 5).reduce(foldEvent, emptySnapshot('v1-x'));
    expect(parked).toMatchObject({ state: 'needs_review', settled: true, reason: 'lost answer' });
    expect(parked.progress).toEqual({ step: 1 });
    expect(parked.unitsDone).toEqual(['u1']);
    const requeued = foldEvent(parked, events[5]!);
    expect(requeued).toMatchObject({ state: 'queued', settled: false, reason: undefined });
  });
});
