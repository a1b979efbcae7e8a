// What to do after a provider call failed. Exhaustive and pure, in the shape of Trigger.dev's
// `shouldRetryError`: every (class, failure) pair has exactly one answer.
//
// Only the guard can say a request never left (it owns the connection): only a failure in the
// connect phase counts as `never_sent`. After the request left, a clear rejection fails the job
// without billing doubt; anything else is ambiguous unless the class says otherwise.

import type { CallClass } from './idempotency.js';

export const CALL_FAILURES = [
  /** Refused, DNS or TLS failure: the request provably never left. */
  'never_sent',
  /** The provider answered with a clear rejection (4xx). */
  'rejected',
  /** The provider answered 5xx after the request left. */
  'server_error',
  /** No answer in time after the request left. */
  'timeout',
  /** The connection dropped after the request left. */
  'connection_dropped',
  /** What the job works on is gone (its row or original file). */
  'target_missing',
] as const;
export type CallFailure = (typeof CALL_FAILURES)[number];

export const RECOVERY_ACTIONS = [
  'retry',
  'poll',
  'needs_review',
  'dead_letter',
  'stale',
  'fail',
] as const;
export type RecoveryAction = (typeof RECOVERY_ACTIONS)[number];

export interface RecoveryInput {
  callClass: CallClass;
  failure: CallFailure;
  /** The attempt that just failed, counting from 1. */
  attempt: number;
  maxAttempts: number;
  /** The pollable call's external job id, when it was recorded before waiting. */
  externalId?: string | null;
}

export function decideRecovery(input: RecoveryInput): RecoveryAction {
  const { callClass, failure } = input;
  const budgetLeft = input.attempt < input.maxAttempts;
  // Refused before anything was sent: a person must look, whatever happened next.
  if (callClass === 'fail_closed') return 'needs_review';
  switch (failure) {
    case 'target_missing':
      return 'stale';
    case 'never_sent':
      return budgetLeft ? 'retry' : 'dead_letter';
    case 'rejected':
      return 'fail';
    case 'server_error':
    case 'timeout':
    case 'connection_dropped':
      return afterSending(callClass, budgetLeft, input.externalId);
  }
}

function afterSending(
  callClass: Exclude<CallClass, 'fail_closed'>,
  budgetLeft: boolean,
  externalId: string | null | undefined,
): RecoveryAction {
  switch (callClass) {
    case 'ambiguous':
      return 'needs_review';
    case 'pollable':
      return externalId ? 'poll' : 'needs_review';
    case 'retry_safe':
      return budgetLeft ? 'retry' : 'dead_letter';
  }
}

/** Exponential backoff with full jitter, capped; `random` is injectable for tests. */
export function backoffMs(
  attempt: number,
  opts: { baseMs?: number; maxMs?: number; random?: () => number } = {},
): number {
  const base = opts.baseMs ?? 1000;
  const max = opts.maxMs ?? 60_000;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  const random = opts.random ?? Math.random;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
