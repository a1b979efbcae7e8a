// What an attempt's end means for its job. Pure and exhaustive (Trigger.dev's `shouldRetryError`
// shape): the abort cause wins over whatever the job code threw while being aborted, then the
// error class decides, then the attempt budget (counted in the database).
//
// A stage whose units failed (`UnitsFailedError`) ends as its most severe cause, in the order of
// `SEVERITY`: needs_review over fail over stale over retry. A unit the provider may have billed
// (review) must never be retried because a sibling unit merely timed out.

import {
  backoffMs,
  isNeedsReviewError,
  isNonRetriableError,
  isLimitHeldError,
  isRetryAfterError,
  isSluiceError,
  isUnitsFailedError,
  parseError,
  type JobError,
  type JobWaiting,
} from '@sluice/contracts';
import { isAttemptSuspended } from '../waits/attempt-suspended.js';

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
  | { kind: 'review'; error: JobError; reason: string; unitKey?: string; provider?: string }
  | {
      kind: 'retry';
      error: JobError;
      delayMs: number;
      reason?: string;
      /**
       * A limit hold: the attempt is handed back to the budget (the write stores `attempts - 1`)
       * and the job shows what it waits on. Never spends an attempt.
       */
      refund?: boolean;
      waiting?: JobWaiting;
    }
  | {
      kind: 'dead_letter';
      error: JobError;
      reason: 'MAX_ATTEMPTS' | 'VERSION_NOT_ROUTABLE';
      detail?: string;
    }
  | { kind: 'stale'; error: JobError; reason: 'FILE_MISSING' }
  /** The job was cancelled while running: the cancel is stored already, only acknowledge. */
  | { kind: 'ack_only' }
  /**
   * The attempt suspended on a durable wait: the suspend (job `waiting`, attempt refunded) was
   * stored by the wait's own fenced transaction; only acknowledge the delivery.
   */
  | { kind: 'suspended' }
  /** The lease went to another attempt: write nothing, acknowledge nothing. */
  | { kind: 'none' };

export type ErrorClass = 'needs_review' | 'non_retriable' | 'stale' | 'retry_after' | 'retriable';

/** Most severe first: the class of a failed stage is the first of these any cause has. */
export const SEVERITY: readonly ErrorClass[] = [
  'needs_review',
  'non_retriable',
  'stale',
  'retry_after',
  'retriable',
];

export function classifyError(error: unknown): ErrorClass {
  if (isNeedsReviewError(error)) return 'needs_review';
  if (isNonRetriableError(error)) return 'non_retriable';
  if (isRetryAfterError(error)) return 'retry_after';
  if (isSluiceError(error) && error.code === 'JOB_STALE') return 'stale';
  if (isUnitsFailedError(error) && Array.isArray(error.causes)) {
    const classes = new Set(error.causes.map((c) => classifyError(c.error)));
    return SEVERITY.find((cls) => classes.has(cls)) ?? 'retriable';
  }
  return 'retriable';
}

function retryAfterMs(error: unknown): number {
  if (isRetryAfterError(error)) return Math.max(0, Number(error.retryAfterMs) || 0);
  if (isUnitsFailedError(error))
    return Math.max(0, ...error.causes.map((c) => retryAfterMs(c.error)));
  return 0;
}

/** The limit that held the attempt, when nothing but limits stopped it (else undefined). */
export function heldBy(error: unknown): JobWaiting | undefined {
  if (isLimitHeldError(error)) return (error as { waiting?: JobWaiting }).waiting;
  if (isUnitsFailedError(error) && Array.isArray(error.causes) && error.causes.length > 0) {
    const held = error.causes.map((c) => heldBy(c.error));
    return held.every((w) => w !== undefined) ? held[0] : undefined;
  }
  return undefined;
}

/** The review's reason, unit and provider: from the (first) NeedsReviewError inside. */
function reviewOf(error: unknown): { reason: string; unitKey?: string; provider?: string } {
  if (isUnitsFailedError(error) && Array.isArray(error.causes)) {
    const cause = error.causes.find((c) => classifyError(c.error) === 'needs_review');
    if (cause) {
      const inner = reviewOf(cause.error);
      return { ...inner, unitKey: inner.unitKey ?? cause.unitKey };
    }
  }
  const message = String((error as { message?: unknown } | null)?.message ?? 'needs review');
  const details = (error as { details?: unknown } | null)?.details;
  const d =
    typeof details === 'object' && details !== null ? (details as Record<string, unknown>) : {};
  return {
    reason: message,
    ...(typeof d.unitKey === 'string' ? { unitKey: d.unitKey } : {}),
    ...(typeof d.provider === 'string' ? { provider: d.provider } : {}),
  };
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
  if (isAttemptSuspended(error)) return { kind: 'suspended' };
  const stored = parseError(error);
  const cls = classifyError(error);
  switch (cls) {
    case 'non_retriable':
      return { kind: 'fail', error: stored };
    case 'needs_review':
      return { kind: 'review', error: stored, ...reviewOf(error) };
    case 'stale':
      return { kind: 'stale', error: stored, reason: 'FILE_MISSING' };
    case 'retry_after': {
      const waiting = heldBy(error);
      return waiting
        ? {
            kind: 'retry',
            error: stored,
            delayMs: retryAfterMs(error),
            reason: 'LIMITED',
            refund: true,
            waiting,
          }
        : { kind: 'retry', error: stored, delayMs: retryAfterMs(error) };
    }
    case 'retriable':
      if (f.attempts < f.maxAttempts) {
        return { kind: 'retry', error: stored, delayMs: (f.backoff ?? backoffMs)(f.attempts) };
      }
      return { kind: 'dead_letter', error: stored, reason: 'MAX_ATTEMPTS' };
  }
}
