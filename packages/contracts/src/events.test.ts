import { describe, expect, it } from 'vitest';
import { eventState, isStateChange } from './event-state.js';
import { JobErrorSchema, JobEvent } from './events.js';
import { formatJobId } from './job-id.js';

const base = { jobId: formatJobId('v1'), seq: 1, at: '2026-11-29T08:00:00.000Z' };

describe('JobEvent', () => {
  it('parses every member', () => {
    const events = [
      { ...base, type: 'state', from: null, to: 'accepted' },
      {
        ...base,
        seq: 2,
        type: 'state',
        from: 'running',
        to: 'failed',
        reason: 'rejected',
        error: { kind: 'non_retriable', message: 'x' },
        attempt: 1,
      },
      { ...base, seq: 3, type: 'progress', data: { done: 1, total: 2 } },
      { ...base, seq: 4, type: 'unit_done', unitKey: 'sentence-0', reused: true },
      {
        ...base,
        seq: 5,
        type: 'needs_review',
        from: 'running',
        to: 'needs_review',
        reason: 'ambiguous provider failure',
        unitKey: 'u1',
        provider: 'acme',
      },
      {
        ...base,
        seq: 6,
        type: 'dead_letter',
        from: 'queued',
        to: 'dead_lettered',
        reason: 'VERSION_NOT_ROUTABLE',
        detail: 'no v2',
      },
    ];
    for (const e of events) expect(JobEvent.parse(e)).toEqual(e);
    expect(events.map((e) => eventState(JobEvent.parse(e)))).toEqual([
      'accepted',
      'failed',
      undefined,
      undefined,
      'needs_review',
      'dead_lettered',
    ]);
    expect(events.map((e) => isStateChange(JobEvent.parse(e)))).toEqual([
      true,
      true,
      false,
      false,
      true,
      true,
    ]);
  });
  it.each([
    ['seq 0', { ...base, seq: 0, type: 'progress', data: 1 }],
    ['fractional seq', { ...base, seq: 1.5, type: 'progress', data: 1 }],
    ['unknown type', { ...base, type: 'other' }],
    ['unknown state', { ...base, type: 'state', from: null, to: 'done' }],
    [
      'needs_review without reason',
      { ...base, type: 'needs_review', from: 'running', to: 'needs_review' },
    ],
  ])('rejects %s', (_n, e) => expect(JobEvent.safeParse(e).success).toBe(false));
  it('validates nested job errors', () => {
    const nested = {
      kind: 'units_failed',
      message: 'm',
      causes: [{ unitKey: 'a', error: { kind: 'sluice', code: 'TIMEOUT', message: 't' } }],
    };
    expect(JobErrorSchema.parse(nested)).toEqual(nested);
    expect(JobErrorSchema.safeParse({ kind: 'sluice', code: 'NOPE', message: 'x' }).success).toBe(
      false,
    );
  });
});
