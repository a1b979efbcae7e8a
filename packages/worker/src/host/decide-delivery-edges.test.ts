// Catches routing that starts what it must hold, holds what it must start, or loses the reason:
// only a RUNNING job's live lease holds a delivery; a queued job is due at exactly its run-after
// time; every dead-letter, stale and release answer says why, exactly.
import { formatJobId, type JobState, type MessagePointer } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { decideDelivery, NOT_DISPATCHED_DELAY_MS, type DeliveryFacts } from './decide-delivery.js';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const pointer = (version = 'v1'): MessagePointer => ({
  jobId: formatJobId(version),
  kind: 'demo.x',
  version,
  tenantId: 'acme',
});
const facts = (
  state: JobState,
  row: Partial<NonNullable<DeliveryFacts['row']>> = {},
  f: Partial<DeliveryFacts> = {},
): DeliveryFacts => ({
  pointer: pointer(),
  row: {
    state,
    epoch: 3,
    attempts: 1,
    maxAttempts: 5,
    runAfter: null,
    leaseUntil: null,
    ...row,
  },
  servedVersions: ['v1'],
  missingFiles: [],
  duplicate: false,
  now: NOW,
  ...f,
});

describe('decideDelivery edges', () => {
  it('an accepted job is not dispatched yet: released for a second, said so', () => {
    expect(decideDelivery(facts('accepted'))).toEqual({
      action: 'release',
      delayMs: NOT_DISPATCHED_DELAY_MS,
      why: 'not_dispatched',
    });
  });

  it('a scheduled job is not due: acked, never started (the scheduler dispatches it when due)', () => {
    expect(decideDelivery(facts('scheduled'))).toEqual({ action: 'ack', why: 'scheduled' });
  });

  it('only a running job is held by its lease; a queued one with a stale lease starts', () => {
    const later = iso(NOW + 5000);
    expect(decideDelivery(facts('queued', { leaseUntil: later }))).toEqual({
      action: 'start',
      epoch: 3,
    });
    expect(decideDelivery(facts('running', { leaseUntil: later }))).toEqual({
      action: 'release',
      delayMs: 5100,
      why: 'held',
    });
    expect(decideDelivery(facts('running', { leaseUntil: iso(NOW) }))).toEqual({
      action: 'reclaim',
      epoch: 3,
    });
    expect(decideDelivery(facts('running'))).toEqual({ action: 'reclaim', epoch: 3 });
  });

  it('a queued job is due at exactly its run-after time, not before', () => {
    expect(decideDelivery(facts('queued', { runAfter: iso(NOW) }))).toEqual({
      action: 'start',
      epoch: 3,
    });
    expect(decideDelivery(facts('queued', { runAfter: iso(NOW - 1) }))).toEqual({
      action: 'start',
      epoch: 3,
    });
    expect(decideDelivery(facts('queued', { runAfter: iso(NOW + 250) }))).toEqual({
      action: 'release',
      delayMs: 250,
      why: 'not_due',
    });
    expect(decideDelivery(facts('queued', { runAfter: 'not a time' }))).toEqual({
      action: 'start',
      epoch: 3,
    });
  });

  it('says exactly why it dead-letters or marks stale', () => {
    expect(decideDelivery(facts('queued', { attempts: 5, maxAttempts: 5 }))).toEqual({
      action: 'dead_letter',
      reason: 'MAX_ATTEMPTS',
      detail: '5 of 5 attempts used',
    });
    expect(decideDelivery(facts('running', {}, { missingFiles: ['f_a', 'f_b'] }))).toEqual({
      action: 'stale',
      reason: 'FILE_MISSING',
      detail: 'missing file(s): f_a, f_b',
    });
  });

  it('queued and running jobs are decided, never left without an answer', () => {
    for (const state of ['queued', 'running'] as const) {
      expect(decideDelivery(facts(state))).toMatchObject({ epoch: 3 });
    }
  });
});
