// Why `result()` rejects: one error class per way a job can end without an output. Each has a
// stable `name` and a `code` from the contracts' ERROR_CODES, and a guard that checks the name
// too, because errors cross realms (duplicate package copies, iframes) where `instanceof` lies.

import { SluiceError, type ErrorCode, type JobError, type JobState } from '@sluice/contracts/wire';

export interface JobEndedDetails {
  jobId: string;
  state: JobState;
  reason: string | null;
  error: JobError | null;
}

/** The common shape of every "job ended without an output" error. */
export abstract class JobEndedError extends SluiceError {
  readonly jobId: string;
  readonly state: JobState;
  /** Why it ended, as the server recorded it (e.g. `MAX_ATTEMPTS`, `VERSION_NOT_ROUTABLE`). */
  readonly reason: string | null;
  /** The job's serialised error, when one was recorded. */
  readonly error: JobError | null;

  protected constructor(code: ErrorCode, message: string, ended: JobEndedDetails) {
    super(code, message, { details: { ...ended } });
    this.jobId = ended.jobId;
    this.state = ended.state;
    this.reason = ended.reason;
    this.error = ended.error;
  }
}

export class JobFailedError extends JobEndedError {
  override readonly name = 'JobFailedError';
  declare readonly error: JobError;
  constructor(ended: JobEndedDetails & { error: JobError }) {
    super('JOB_FAILED', `job ${ended.jobId} failed: ${ended.error.message}`, ended);
  }
}

export class JobCancelledError extends JobEndedError {
  override readonly name = 'JobCancelledError';
  constructor(ended: JobEndedDetails) {
    super('JOB_CANCELLED', `job ${ended.jobId} was cancelled`, ended);
  }
}

export class JobNeedsReviewError extends JobEndedError {
  override readonly name = 'JobNeedsReviewError';
  constructor(ended: JobEndedDetails) {
    super('JOB_NEEDS_REVIEW', `job ${ended.jobId} needs review: ${describe(ended)}`, ended);
  }
}

export class JobDeadLetteredError extends JobEndedError {
  override readonly name = 'JobDeadLetteredError';
  constructor(ended: JobEndedDetails) {
    super('JOB_DEAD_LETTERED', `job ${ended.jobId} was dead-lettered: ${describe(ended)}`, ended);
  }
}

export class JobStaleError extends JobEndedError {
  override readonly name = 'JobStaleError';
  constructor(ended: JobEndedDetails) {
    super('JOB_STALE', `job ${ended.jobId} is stale: ${describe(ended)}`, ended);
  }
}

export interface InputIssue {
  path: string;
  code: string;
  message: string;
}

/** A call to the gateway that failed (HTTP status, tRPC error or network), with a stable code. */
export class SluiceApiError extends SluiceError {
  override readonly name = 'SluiceApiError';
  /** The HTTP status when there was one; 0 for network and socket failures. */
  readonly httpStatus: number;
  /** For invalid input: which fields were wrong and why, as the gateway reported them. */
  readonly issues: readonly InputIssue[] | undefined;
  constructor(
    code: ErrorCode,
    message: string,
    httpStatus: number,
    cause?: unknown,
    issues?: readonly InputIssue[],
  ) {
    super(code, message, { cause, details: { httpStatus, ...(issues ? { issues } : {}) } });
    this.httpStatus = httpStatus;
    this.issues = issues;
  }
}

function describe(ended: JobEndedDetails): string {
  return ended.reason ?? ended.error?.message ?? 'no reason recorded';
}

function hasName(value: unknown, name: string): boolean {
  return typeof value === 'object' && value !== null && (value as { name?: unknown }).name === name;
}

export function isJobEndedError(value: unknown): value is JobEndedError {
  return (
    value instanceof JobEndedError ||
    [
      'JobFailedError',
      'JobCancelledError',
      'JobNeedsReviewError',
      'JobDeadLetteredError',
      'JobStaleError',
    ].some((name) => hasName(value, name))
  );
}
export function isJobFailedError(value: unknown): value is JobFailedError {
  return value instanceof JobFailedError || hasName(value, 'JobFailedError');
}
export function isJobCancelledError(value: unknown): value is JobCancelledError {
  return value instanceof JobCancelledError || hasName(value, 'JobCancelledError');
}
export function isJobNeedsReviewError(value: unknown): value is JobNeedsReviewError {
  return value instanceof JobNeedsReviewError || hasName(value, 'JobNeedsReviewError');
}
export function isJobDeadLetteredError(value: unknown): value is JobDeadLetteredError {
  return value instanceof JobDeadLetteredError || hasName(value, 'JobDeadLetteredError');
}
export function isJobStaleError(value: unknown): value is JobStaleError {
  return value instanceof JobStaleError || hasName(value, 'JobStaleError');
}
export function isSluiceApiError(value: unknown): value is SluiceApiError {
  return value instanceof SluiceApiError || hasName(value, 'SluiceApiError');
}
