// What an attempt's end means for its job. Pure and exhaustive (Trigger.dev's `shouldRetryError`
// shape): the abort cause wins over whatever the job code threw while being aborted, then the
// error class decides, then the attempt budget (counted in the database).

import {
  backoffMs,
  isNeedsReviewError,
  isNonRetriableError,
  isRetryAfterError,
  isSluiceError,
  isUnitsFailedError,
  parseError,
  type JobError,
} from '@sluice/contracts';

/** Why the host aborted an attempt's signal. */
export type AbortCause = 'cancelled' | 'lease_lost' | 'drain';

export type AttemptResult = { ok: true; output: unknown } | { ok: false; error: unknown };

export interface OutcomeFacts {
  result: AttemptResult;
  cause: AbortCause | undefined;
  /** This attempt's number and the job's budget, from the database. */
  attempts: number;
  maxAttempts: number;
  /** Injectable for tests. */
  backoff?: (attempt: number) => number;
}

export type Outcome =
  | { kind: 'succeed'; output: unknown }
  | { kind: 'fail'; error: JobError }
  | { kind: 'review'; error: JobError; reason: string }
  | { kind: 'retry'; error: JobError; delayMs: number; reason?: string }
  | { kind: 'dead_letter'; error: JobError; reason: 'MAX_ATTEMPTS' }
  | { kind: 'stale'; error: JobError; reason: 'FILE_MISSING' }
  /** The job was cancelled while running: the cancel is stored already, only acknowledge. */
  | { kind: 'ack_only' }
  /** The lease went to another attempt: write nothing, acknowledge nothing. */
  | { kind: 'none' };

type ErrorClass = 'non_retriable' | 'needs_review' | 'retry_after' | 'stale' | 'retriable';

function classify(error: unknown): ErrorClass {
  if (isNeedsReviewError(error)) return 'needs_review';
  if (isNonRetriableError(error)) return 'non_retriable';
  if (isRetryAfterError(error)) return 'retry_after';
  if (isSluiceError(error) && error.code === 'JOB_STALE') return 'stale';
  if (isUnitsFailedError(error) && Array.isArray(error.causes)) {
    // One unit that cannot succeed fails the stage however the others did: the worst class wins.
    const classes = error.causes.map((c) => classify(c.error));
    for (const worst of ['needs_review', 'non_retriable', 'stale', 'retry_after'] as const) {
      if (classes.includes(worst)) return worst;
    }
  }
  return 'retriable';
}

function retryAfterMs(error: unknown): number {
  if (isRetryAfterError(error)) return Math.max(0, Number(error.retryAfterMs) || 0);
  if (isUnitsFailedError(error))
    return Math.max(0, ...error.causes.map((c) => retryAfterMs(c.error)));
  return 0;
}

export function decideOutcome(f: OutcomeFacts): Outcome {
  switch (f.cause) {
    case 'cancelled':
      return { kind: 'ack_only' };
    case 'lease_lost':
      return { kind: 'none' };
    case 'drain':
      // Work given back on shutdown runs again at once; a result that made it is kept.
      if (f.result.ok) return { kind: 'succeed', output: f.result.output };
      return { kind: 'retry', error: parseError(f.result.error), delayMs: 0, reason: 'DRAINED' };
    case undefined:
      break;
  }
  if (f.result.ok) return { kind: 'succeed', output: f.result.output };
  const { error } = f.result;
  const stored = parseError(error);
  const cls = classify(error);
  switch (cls) {
    case 'non_retriable':
      return { kind: 'fail', error: stored };
    case 'needs_review':
      return { kind: 'review', error: stored, reason: stored.message };
    case 'stale':
      return { kind: 'stale', error: stored, reason: 'FILE_MISSING' };
    case 'retry_after':
      return { kind: 'retry', error: stored, delayMs: retryAfterMs(error) };
    case 'retriable':
      if (f.attempts < f.maxAttempts) {
        return { kind: 'retry', error: stored, delayMs: (f.backoff ?? backoffMs)(f.attempts) };
      }
      return { kind: 'dead_letter', error: stored, reason: 'MAX_ATTEMPTS' };
  }
}
