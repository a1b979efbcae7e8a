// One error concept for the whole project: a code union plus a normaliser for `unknown`.
// Zod-free on purpose: the browser client imports this module at runtime.
//
// Guards check `name` as well as `instanceof`, because errors cross realms (workerd, child
// processes, duplicate package copies) and `instanceof` is false across them.

import type { JobWaiting } from './limits.js';

export const ERROR_CODES = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  /** A tenant's stored bytes (uploads and job assets) would pass its storage quota. */
  'QUOTA_EXCEEDED',
  'RANGE_NOT_SATISFIABLE',
  'RATE_LIMITED',
  'TIMEOUT',
  'UNAVAILABLE',
  'INTERNAL',
  'INVALID_CONFIG',
  'ILLEGAL_TRANSITION',
  'VERSION_NOT_ROUTABLE',
  'POINTER_TOO_LARGE',
  'LEASE_LOST',
  'PROVIDER_CALL_REFUSED',
  'PROVIDER_CALL_FAILED',
  'NON_RETRIABLE',
  'RETRY_AFTER',
  'NEEDS_REVIEW',
  'UNITS_FAILED',
  'JOB_FAILED',
  'JOB_CANCELLED',
  'JOB_STALE',
  'JOB_DEAD_LETTERED',
  'JOB_NEEDS_REVIEW',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** The serialisable form of any error, as stored in job rows and events and sent to clients. */
export type JobError =
  | { kind: 'sluice'; code: ErrorCode; message: string; details?: Record<string, unknown> }
  | { kind: 'non_retriable'; message: string }
  | { kind: 'retry_after'; message: string; retryAfterMs: number }
  | { kind: 'needs_review'; message: string }
  | { kind: 'units_failed'; message: string; causes: UnitFailure[] }
  | { kind: 'error'; name: string; message: string; stack?: string }
  | { kind: 'unknown'; message: string };

export interface UnitFailure {
  unitKey: string;
  error: JobError;
}

export class SluiceError extends Error {
  override readonly name: string = 'SluiceError';
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options?: { details?: Record<string, unknown>; cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details;
  }
}

/** Job code throws this to fail the job at once: no retry, whatever the attempt budget. */
export class NonRetriableError extends SluiceError {
  override readonly name = 'NonRetriableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('NON_RETRIABLE', message, options);
  }
}

/** Job code throws this to retry no sooner than `retryAfterMs` (e.g. a provider's Retry-After). */
export class RetryAfterError extends SluiceError {
  override readonly name: 'RetryAfterError' | 'LimitHeldError' = 'RetryAfterError';
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, options?: { cause?: unknown }) {
    super('RETRY_AFTER', message, { ...options, details: { retryAfterMs } });
    this.retryAfterMs = Math.max(0, retryAfterMs);
  }
}

/**
 * A shared limit kept the attempt from starting (or a guarded call from sending) for too long:
 * the job waits `queued` again after `retryAfterMs` and the attempt is REFUNDED — a limit never
 * spends the job's attempt budget. Thrown by Sluice (the provider guard, the start gate).
 */
export class LimitHeldError extends RetryAfterError {
  override readonly name = 'LimitHeldError' as const;
  readonly waiting: JobWaiting;
  constructor(message: string, retryAfterMs: number, waiting: JobWaiting) {
    super(message, retryAfterMs);
    this.waiting = waiting;
  }
}

/** Job code throws this to park the job for a person (`needs_review`), never retried by itself. */
export class NeedsReviewError extends SluiceError {
  override readonly name = 'NeedsReviewError';
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('NEEDS_REVIEW', message, options);
  }
}

/** A stage whose parallel units failed: carries every cause, never only the first. */
export class UnitsFailedError extends SluiceError {
  override readonly name = 'UnitsFailedError';
  readonly causes: readonly { unitKey: string; error: unknown }[];
  constructor(causes: readonly { unitKey: string; error: unknown }[]) {
    const keys = causes.map((c) => c.unitKey).join(', ');
    super('UNITS_FAILED', `${causes.length} unit(s) failed: ${keys}`);
    this.causes = causes;
  }
}

/**
 * An optional peer dependency (a database driver, the Valkey client) that the chosen setup needs
 * is not installed. Names the package so the fix is one `npm install`.
 */
export class MissingDependencyError extends SluiceError {
  override readonly name = 'MissingDependencyError';
  readonly packageName: string;
  constructor(packageName: string, neededFor: string, options?: { cause?: unknown }) {
    super(
      'INVALID_CONFIG',
      `${neededFor} needs the package "${packageName}": install it (npm install ${packageName})`,
      { ...options, details: { packageName } },
    );
    this.packageName = packageName;
  }
}

function hasName(value: unknown, name: string): boolean {
  return typeof value === 'object' && value !== null && (value as { name?: unknown }).name === name;
}

export function isSluiceError(value: unknown): value is SluiceError {
  if (value instanceof SluiceError) return true;
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { name?: unknown; code?: unknown };
  return typeof v.name === 'string' && isErrorCode(v.code) && v.name.endsWith('Error');
}

export function isNonRetriableError(value: unknown): value is NonRetriableError {
  return value instanceof NonRetriableError || hasName(value, 'NonRetriableError');
}

export function isRetryAfterError(value: unknown): value is RetryAfterError {
  return (
    value instanceof RetryAfterError ||
    hasName(value, 'RetryAfterError') ||
    hasName(value, 'LimitHeldError')
  );
}

export function isLimitHeldError(value: unknown): value is LimitHeldError {
  return value instanceof LimitHeldError || hasName(value, 'LimitHeldError');
}

export function isNeedsReviewError(value: unknown): value is NeedsReviewError {
  return value instanceof NeedsReviewError || hasName(value, 'NeedsReviewError');
}

export function isUnitsFailedError(value: unknown): value is UnitsFailedError {
  return value instanceof UnitsFailedError || hasName(value, 'UnitsFailedError');
}

export function isMissingDependencyError(value: unknown): value is MissingDependencyError {
  return value instanceof MissingDependencyError || hasName(value, 'MissingDependencyError');
}

/** Turns anything thrown into a serialisable `JobError`. Never throws. */
export function parseError(value: unknown): JobError {
  if (isUnitsFailedError(value)) {
    const causes = Array.isArray(value.causes) ? value.causes : [];
    return {
      kind: 'units_failed',
      message: String(value.message),
      causes: causes.map((c) => ({ unitKey: String(c.unitKey), error: parseError(c.error) })),
    };
  }
  if (isNonRetriableError(value)) return { kind: 'non_retriable', message: String(value.message) };
  if (isRetryAfterError(value)) {
    const ms = Number(value.retryAfterMs);
    return {
      kind: 'retry_after',
      message: String(value.message),
      retryAfterMs: Number.isFinite(ms) ? ms : 0,
    };
  }
  if (isNeedsReviewError(value)) return { kind: 'needs_review', message: String(value.message) };
  if (isSluiceError(value)) {
    return {
      kind: 'sluice',
      code: value.code,
      message: String(value.message),
      ...(value.details ? { details: value.details } : {}),
    };
  }
  if (value instanceof Error) {
    return {
      kind: 'error',
      name: value.name,
      message: value.message,
      ...(value.stack ? { stack: value.stack } : {}),
    };
  }
  if (typeof value === 'object' && value !== null) {
    const v = value as { name?: unknown; message?: unknown };
    if (typeof v.message === 'string') {
      return {
        kind: 'error',
        name: typeof v.name === 'string' ? v.name : 'Error',
        message: v.message,
      };
    }
  }
  return { kind: 'unknown', message: safeString(value) };
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}
