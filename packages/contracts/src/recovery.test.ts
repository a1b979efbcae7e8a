import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CALL_CLASSES, type CallClass } from './idempotency.js';
import {
  CALL_FAILURES,
  backoffMs,
  decideRecovery,
  type CallFailure,
  type RecoveryAction,
} from './recovery.js';

type Row = [
  CallClass,
  CallFailure,
  'budget left' | 'last attempt',
  'with external id' | 'no external id',
  RecoveryAction,
];

// Every (class, failure, budget, external id) combination, written out from the idempotency table
// (the header of idempotency.ts) and the recovery rules of recovery.ts.
function expected(c: CallClass, f: CallFailure, budget: boolean, ext: boolean): RecoveryAction {
  if (c === 'fail_closed') return 'needs_review';
  if (f === 'target_missing') return 'stale';
  if (f === 'never_sent') return budget ? 'retry' : 'dead_letter';
  if (f === 'rejected') return 'fail';
  if (c === 'ambiguous') return 'needs_review';
  if (c === 'pollable') return ext ? 'poll' : 'needs_review';
  return budget ? 'retry' : 'dead_letter';
}

const ROWS: Row[] = [];
for (const c of CALL_CLASSES)
  for (const f of CALL_FAILURES)
    for (const budget of [true, false])
      for (const ext of [true, false])
        ROWS.push([
          c,
          f,
          budget ? 'budget left' : 'last attempt',
          ext ? 'with external id' : 'no external id',
          expected(c, f, budget, ext),
        ]);

// A few rows spelled out by hand, so the table above cannot drift from the design unnoticed.
const SPELLED: Row[] = [
  ['fail_closed', 'never_sent', 'budget left', 'no external id', 'needs_review'],
  ['ambiguous', 'never_sent', 'budget left', 'no external id', 'retry'],
  ['ambiguous', 'connection_dropped', 'budget left', 'no external id', 'needs_review'],
  ['ambiguous', 'server_error', 'budget left', 'with external id', 'needs_review'],
  ['ambiguous', 'rejected', 'budget left', 'no external id', 'fail'],
  ['pollable', 'timeout', 'budget left', 'no external id', 'needs_review'],
  ['pollable', 'timeout', 'last attempt', 'with external id', 'poll'],
  ['retry_safe', 'server_error', 'budget left', 'no external id', 'retry'],
  ['retry_safe', 'server_error', 'last attempt', 'no external id', 'dead_letter'],
  ['retry_safe', 'never_sent', 'last attempt', 'no external id', 'dead_letter'],
  ['pollable', 'target_missing', 'budget left', 'with external id', 'stale'],
];

describe('decideRecovery: every row', () => {
  it('covers every combination', () => expect(ROWS).toHaveLength(4 * 6 * 2 * 2));
  it.each([...SPELLED, ...ROWS])(
    '%s / %s / %s / %s → %s',
    (callClass, failure, budget, ext, action) => {
      const maxAttempts = 3;
      const attempt = budget === 'budget left' ? 2 : 3;
      const externalId = ext === 'with external id' ? 'ext-1' : null;
      expect(decideRecovery({ callClass, failure, attempt, maxAttempts, externalId })).toBe(action);
    },
  );
  it('treats an empty external id as none', () => {
    expect(
      decideRecovery({
        callClass: 'pollable',
        failure: 'timeout',
        attempt: 1,
        maxAttempts: 5,
        externalId: '',
      }),
    ).toBe('needs_review');
    expect(
      decideRecovery({ callClass: 'pollable', failure: 'timeout', attempt: 1, maxAttempts: 5 }),
    ).toBe('needs_review');
  });
  it('the budget boundary is attempt < maxAttempts', () => {
    const d = (attempt: number) =>
      decideRecovery({ callClass: 'retry_safe', failure: 'timeout', attempt, maxAttempts: 5 });
    expect([1, 4, 5, 6].map(d)).toEqual(['retry', 'retry', 'dead_letter', 'dead_letter']);
  });
  it('never retries an ambiguous call automatically once it was sent', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<CallFailure>('server_error', 'timeout', 'connection_dropped'),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 20 }),
        fc.option(fc.string()),
        (failure, attempt, maxAttempts, externalId) => {
          const action = decideRecovery({
            callClass: 'ambiguous',
            failure,
            attempt,
            maxAttempts,
            externalId,
          });
          expect(action).toBe('needs_review');
        },
      ),
    );
  });
});

describe('backoffMs', () => {
  it('doubles from the base, stays within [ceiling/2, ceiling] and under the cap', () => {
    expect(backoffMs(1, { baseMs: 100, random: () => 0 })).toBe(50);
    expect(backoffMs(1, { baseMs: 100, random: () => 1 })).toBe(100);
    expect(backoffMs(3, { baseMs: 100, random: () => 1 })).toBe(400);
    expect(backoffMs(3, { baseMs: 100, random: () => 0.5 })).toBe(300);
    expect(backoffMs(30, { baseMs: 100, maxMs: 1000, random: () => 1 })).toBe(1000);
    expect(backoffMs(0, { baseMs: 100, random: () => 1 })).toBe(100);
  });
  it('defaults to a 1 s base and a 60 s cap', () => {
    expect(backoffMs(1, { random: () => 1 })).toBe(1000);
    expect(backoffMs(20, { random: () => 1 })).toBe(60_000);
    const v = backoffMs(2);
    expect(v).toBeGreaterThanOrEqual(1000);
    expect(v).toBeLessThanOrEqual(2000);
  });
});
