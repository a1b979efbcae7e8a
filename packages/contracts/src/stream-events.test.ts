import { describe, expect, it } from 'vitest';
import { formatJobId } from './job-id.js';
import { decodeStreamEvent, encodeStreamEvent } from './stream-events.js';

describe('events stream entries', () => {
  const event = {
    jobId: formatJobId('v1'),
    seq: 3,
    at: '2026-11-29T00:00:00.000Z',
    type: 'progress' as const,
    data: { done: 1 },
  };
  it('round-trip', () => {
    const fields = encodeStreamEvent({ tenantId: 'acme', kind: 'demo.summarize', event });
    expect(fields.slice(0, 4)).toEqual(['t', 'acme', 'k', 'demo.summarize']);
    expect(decodeStreamEvent(fields)).toEqual({ tenantId: 'acme', kind: 'demo.summarize', event });
  });
  it.each([
    ['no tenant', ['k', 'a.b', 'e', '{}']],
    ['bad tenant', ['t', '../x', 'k', 'a.b', 'e', JSON.stringify(event)]],
    ['no event', ['t', 'acme', 'k', 'a.b']],
    ['not json', ['t', 'acme', 'k', 'a.b', 'e', '{']],
    ['not an event', ['t', 'acme', 'k', 'a.b', 'e', '{"type":"x"}']],
  ])('rejects %s', (_n, fields) => {
    expect(() => decodeStreamEvent(fields)).toThrowError(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });
});
