import { formatJobId, type JobState, type MessagePointer } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { testHooks } from '../testing/seeded-bugs.js';
import type { DeliveryFacts } from './decide-delivery.js';

// Under `npm run seeded-bugs` this is the seeded variant; otherwise the real decision.
const decideDelivery = testHooks().decideDelivery;

const pointer = (version = 'v1'): MessagePointer => ({
  jobId: formatJobId(version),
  kind: 'demo.x',
  version,
  tenantId: 'acme',
});
const row = (
  state: JobState,
  extra: Partial<NonNullable<DeliveryFacts['row']>> = {},
): NonNullable<DeliveryFacts['row']> => ({
  state,
  epoch: 3,
  attempts: 1,
  maxAttempts: 5,
  runAfter: null,
  leaseUntil: null,
  ...extra,
});
const facts = (f: Partial<DeliveryFacts>): DeliveryFacts => ({
  pointer: pointer(),
  row: row('queued'),
  servedVersions: ['v1'],
  missingFiles: [],
  duplicate: false,
  now: Date.now(),
  ...f,
});

describe('decideDelivery', () => {
  it('acks what it cannot or need not run', () => {
    expect(decideDelivery(facts({ pointer: null }))).toMatchObject({
      action: 'ack',
      why: 'no_pointer',
    });
    expect(decideDelivery(facts({ row: undefined }))).toMatchObject({
      action: 'ack',
      why: 'row_missing',
    });
    expect(decideDelivery(facts({ duplicate: true }))).toMatchObject({
      action: 'ack',
      why: 'duplicate',
    });
    for (const s of [
      'succeeded',
      'failed',
      'cancelled',
      'stale',
      'needs_review',
      'dead_lettered',
    ] as const) {
      expect(decideDelivery(facts({ row: row(s) }))).toMatchObject({
        action: 'ack',
        why: 'finished',
      });
    }
  });

  it('dead-letters a version this worker does not serve, before anything else', () => {
    const d = decideDelivery(
      facts({ pointer: pointer('v2'), row: row('queued', { attempts: 9 }) }),
    );
    expect(d).toMatchObject({ action: 'dead_letter', reason: 'VERSION_NOT_ROUTABLE' });
  });

  it('dead-letters a job whose attempts (counted in the database) are used up', () => {
    expect(decideDelivery(facts({ row: row('running', { attempts: 5 }) }))).toMatchObject({
      action: 'dead_letter',
      reason: 'MAX_ATTEMPTS',
    });
    expect(decideDelivery(facts({ row: row('queued', { attempts: 4 }) }))).toMatchObject({
      action: 'start',
    });
  });

  it('marks a job with a missing file stale', () => {
    expect(decideDelivery(facts({ missingFiles: ['f_a'] }))).toMatchObject({
      action: 'stale',
      reason: 'FILE_MISSING',
    });
  });

  it('starts queued jobs and reclaims running ones at the epoch it saw', () => {
    expect(decideDelivery(facts({}))).toEqual({ action: 'start', epoch: 3 });
    expect(decideDelivery(facts({ row: row('running') }))).toEqual({ action: 'reclaim', epoch: 3 });
  });

  it('gives back a job not due yet or not dispatched yet', () => {
    const now = Date.now();
    const later = new Date(now + 5000).toISOString();
    expect(decideDelivery(facts({ now, row: row('queued', { runAfter: later }) }))).toEqual({
      action: 'release',
      delayMs: 5000,
      why: 'not_due',
    });
    expect(decideDelivery(facts({ row: row('accepted') }))).toMatchObject({ action: 'release' });
  });

  it('leaves a running job alone while its holder’s lease is live (a duplicate delivery)', () => {
    const now = Date.parse('2026-11-29T10:00:00.000Z');
    const live = row('running', { leaseUntil: '2026-11-29T10:00:02.000Z', attempts: 5 });
    // not reclaimed, not dead-lettered at its attempt limit, not marked stale: only looked at later
    expect(decideDelivery(facts({ row: live, now, missingFiles: ['f_x'] }))).toEqual({
      action: 'release',
      delayMs: 2100,
      why: 'held',
    });
    expect(decideDelivery(facts({ row: live, now, servedVersions: [] }))).toMatchObject({
      action: 'release',
      why: 'held',
    });
    const expired = row('running', { leaseUntil: '2026-11-29T09:59:59.999Z' });
    expect(decideDelivery(facts({ row: expired, now }))).toEqual({ action: 'reclaim', epoch: 3 });
    expect(
      decideDelivery(
        facts({ row: row('running', { leaseUntil: '2026-11-29T10:00:00.000Z' }), now }),
      ),
    ).toEqual({ action: 'reclaim', epoch: 3 });
  });
});
