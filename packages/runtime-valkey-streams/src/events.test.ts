import { describe, expect, it } from 'vitest';
import { formatJobId } from '@sluice/contracts';
import {
  decodeStreamEvents,
  encodeStreamEvent,
  encodeStreamEvents,
  groupStreamEvents,
} from './events.js';

describe('events stream entries', () => {
  const jobId = formatJobId('v1');
  const event = {
    jobId,
    seq: 3,
    at: '2026-11-29T00:00:00.000Z',
    type: 'progress' as const,
    data: { done: 1 },
  };
  const pub = (e: typeof event) => ({ tenantId: 'acme', kind: 'demo.summarize', event: e });
  it('round-trip, one event or a job run of events in one entry', () => {
    const fields = encodeStreamEvent(pub(event));
    expect(fields.slice(0, 4)).toEqual(['t', 'acme', 'k', 'demo.summarize']);
    expect(decodeStreamEvents(fields)).toEqual([pub(event)]);
    const run = [pub(event), pub({ ...event, seq: 4 }), pub({ ...event, seq: 5 })];
    expect(decodeStreamEvents(encodeStreamEvents(run))).toEqual(run);
    expect(encodeStreamEvents(run.slice(0, 1))).toEqual(fields);
  });
  it('groups consecutive events of one job, keeping order', () => {
    const other = { ...event, jobId: formatJobId('v1') };
    const list = [pub(event), pub({ ...event, seq: 4 }), pub(other), pub({ ...event, seq: 5 })];
    expect(groupStreamEvents(list).map((g) => g.map((e) => e.event.seq))).toEqual([
      [3, 4],
      [3],
      [5],
    ]);
  });
  it.each([
    ['no tenant', ['k', 'a.b', 'e', '{}']],
    ['bad tenant', ['t', '../x', 'k', 'a.b', 'e', JSON.stringify(event)]],
    ['no event', ['t', 'acme', 'k', 'a.b']],
    ['not json', ['t', 'acme', 'k', 'a.b', 'e', '{']],
    ['not an event', ['t', 'acme', 'k', 'a.b', 'e', '{"type":"x"}']],
    ['an empty run', ['t', 'acme', 'k', 'a.b', 'e', '[]']],
    ['a run with a bad event', ['t', 'acme', 'k', 'a.b', 'e', `[${JSON.stringify(event)},{}]`]],
  ])('rejects %s', (_n, fields) => {
    expect(() => decodeStreamEvents(fields)).toThrowError(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });
});
