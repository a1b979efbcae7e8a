// The one error mapper of the gateway: a contracts `SluiceError` code becomes a tRPC code, and
// the formatter puts `sluiceCode` (and, for input errors, the zod issues) into `data`. Nothing
// internal reaches a client: no stack traces, and internal errors carry a fixed message.

import { isSluiceError, SluiceError, type ErrorCode } from '@sluice/contracts';
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODE_NUMBER } from '@trpc/server/rpc';

export function trpcCodeFor(code: ErrorCode): TRPC_ERROR_CODE_KEY {
  switch (code) {
    case 'BAD_REQUEST':
    case 'POINTER_TOO_LARGE':
    case 'RANGE_NOT_SATISFIABLE':
      return 'BAD_REQUEST';
    case 'UNAUTHORIZED':
      return 'UNAUTHORIZED';
    case 'FORBIDDEN':
      return 'FORBIDDEN';
    case 'NOT_FOUND':
      return 'NOT_FOUND';
    case 'CONFLICT':
    case 'ILLEGAL_TRANSITION':
      return 'CONFLICT';
    case 'PAYLOAD_TOO_LARGE':
    case 'QUOTA_EXCEEDED':
      return 'PAYLOAD_TOO_LARGE';
    case 'RATE_LIMITED':
    case 'RETRY_AFTER':
      return 'TOO_MANY_REQUESTS';
    case 'TIMEOUT':
      return 'TIMEOUT';
    case 'UNAVAILABLE':
      return 'SERVICE_UNAVAILABLE';
    case 'INTERNAL':
    case 'INVALID_CONFIG':
    case 'VERSION_NOT_ROUTABLE':
    case 'LEASE_LOST':
    case 'PROVIDER_CALL_REFUSED':
    case 'PROVIDER_CALL_FAILED':
    case 'NON_RETRIABLE':
    case 'NEEDS_REVIEW':
    case 'UNITS_FAILED':
    case 'JOB_FAILED':
    case 'JOB_CANCELLED':
    case 'JOB_STALE':
    case 'JOB_DEAD_LETTERED':
    case 'JOB_NEEDS_REVIEW':
      return 'INTERNAL_SERVER_ERROR';
  }
}

/** The SluiceError code a tRPC code stands for, when the error did not come from one. */
function sluiceCodeFor(code: TRPC_ERROR_CODE_KEY): ErrorCode {
  switch (code) {
    case 'BAD_REQUEST':
    case 'PARSE_ERROR':
    case 'UNPROCESSABLE_CONTENT':
    case 'UNSUPPORTED_MEDIA_TYPE':
    case 'METHOD_NOT_SUPPORTED':
    case 'PRECONDITION_FAILED':
      return 'BAD_REQUEST';
    case 'UNAUTHORIZED':
      return 'UNAUTHORIZED';
    case 'FORBIDDEN':
      return 'FORBIDDEN';
    case 'NOT_FOUND':
      return 'NOT_FOUND';
    case 'CONFLICT':
      return 'CONFLICT';
    case 'PAYLOAD_TOO_LARGE':
      return 'PAYLOAD_TOO_LARGE';
    case 'TOO_MANY_REQUESTS':
      return 'RATE_LIMITED';
    case 'TIMEOUT':
    case 'CLIENT_CLOSED_REQUEST':
      return 'TIMEOUT';
    case 'SERVICE_UNAVAILABLE':
    case 'BAD_GATEWAY':
    case 'GATEWAY_TIMEOUT':
      return 'UNAVAILABLE';
    default:
      return 'INTERNAL';
  }
}

/** The first non-TRPCError in a cause chain (tRPC may wrap a TRPCError in another). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof TRPCError; depth++) {
    if (current.cause === undefined) return current;
    current = current.cause;
  }
  return current;
}

/**
 * The answer to a request the job database could not serve right now (its dialect's
 * `isUnavailable`): retryable, and honest that a failure at commit may have applied it.
 */
export const DATABASE_UNAVAILABLE_MESSAGE =
  'the job database is unavailable right now; retry (with the same idempotency key, if the ' +
  'request may already have been applied)';

/**
 * Any thrown value as the TRPCError a client should get. `unavailable` tells a driver error of a
 * database that cannot answer right now (UNAVAILABLE, 503) from an internal one.
 */
export function toTRPCError(error: unknown, unavailable?: (error: unknown) => boolean): TRPCError {
  const root = rootCause(error);
  if (!isSluiceError(root) && !(root instanceof TRPCError) && unavailable?.(root))
    return toTRPCError(
      new SluiceError('UNAVAILABLE', DATABASE_UNAVAILABLE_MESSAGE, { cause: root }),
    );
  const source = isSluiceError(root) ? root : error;
  if (isSluiceError(source)) {
    return new TRPCError({
      code: trpcCodeFor(source.code),
      message: source.message,
      cause: source,
    });
  }
  if (source instanceof TRPCError) return source;
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: source });
}

/** Throws the mapped TRPCError of a SluiceError (for generators, where no middleware maps). */
export function fail(code: ErrorCode, message: string): never {
  throw toTRPCError(new SluiceError(code, message));
}

export interface IssueView {
  path: string;
  code: string;
  message: string;
}

const MAX_ISSUES = 20;

function issuesOf(cause: unknown): IssueView[] | undefined {
  if (typeof cause !== 'object' || cause === null) return undefined;
  const issues = (cause as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.slice(0, MAX_ISSUES).map((raw: unknown) => {
    const i = (raw ?? {}) as { path?: unknown; code?: unknown; message?: unknown };
    const path = Array.isArray(i.path) ? i.path.map(String).join('.') : '';
    return { path, code: String(i.code ?? 'invalid'), message: String(i.message ?? 'invalid') };
  });
}

/**
 * `Invalid input: id: must be a job id (…)`: the first issue's field and rule, so a caller that
 * prints only the message (the CLI, a log line) still says what to fix; `issues` has them all.
 */
export function invalidInputMessage(issues: readonly IssueView[]): string {
  const [first] = issues;
  if (!first) return 'Invalid input';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `Invalid input: ${first.path || 'input'}: ${first.message}${more}`;
}

/**
 * A refusal of one field that passed the schema (a SluiceError with `details.field`: a flow
 * option the runtime cannot honour, two options that exclude each other), as one issue with that
 * path, so a caller reads it exactly like a schema issue.
 */
function fieldIssueOf(cause: unknown): IssueView[] | undefined {
  if (!isSluiceError(cause)) return undefined;
  const field = cause.details?.field;
  if (typeof field !== 'string') return undefined;
  const capability = cause.details?.capability;
  const code = typeof capability === 'string' ? `unsupported:${capability}` : 'refused';
  return [{ path: field, code, message: cause.message }];
}

export interface ErrorData {
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  path?: string | undefined;
  sluiceCode: ErrorCode;
  issues?: IssueView[] | undefined;
  /**
   * How long a RATE_LIMITED caller should wait: the Retry-After of transports without headers
   * (a WebSocket frame, an SSE event), and on HTTP beside the header.
   */
  retryAfterMs?: number | undefined;
}

function retryAfterMsOf(cause: unknown): number | undefined {
  if (!isSluiceError(cause) || cause.code !== 'RATE_LIMITED') return undefined;
  const ms = cause.details?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) ? ms : undefined;
}

interface DefaultShape {
  code: TRPC_ERROR_CODE_NUMBER;
  message: string;
  data: { code: TRPC_ERROR_CODE_KEY; httpStatus: number; path?: string | undefined };
}

/** tRPC `errorFormatter`: a stable, minimal shape (no stack, no internal messages). */
export function formatError({ shape, error }: { shape: DefaultShape; error: TRPCError }): {
  code: TRPC_ERROR_CODE_NUMBER;
  message: string;
  data: ErrorData;
} {
  const code = error.code;
  const cause = rootCause(error);
  const fieldIssues = code === 'BAD_REQUEST' ? fieldIssueOf(cause) : undefined;
  const issues = code === 'BAD_REQUEST' ? (issuesOf(cause) ?? fieldIssues) : undefined;
  let message = shape.message;
  if (code === 'INTERNAL_SERVER_ERROR') message = 'Internal server error';
  // A refused field keeps its own message (it names the field already).
  else if (issues && !fieldIssues) message = invalidInputMessage(issues);
  const sluiceCode = isSluiceError(cause) ? cause.code : sluiceCodeFor(code);
  const retryAfterMs = retryAfterMsOf(cause);
  return {
    code: shape.code,
    message,
    data: {
      code,
      httpStatus: shape.data.httpStatus,
      ...(shape.data.path !== undefined ? { path: shape.data.path } : {}),
      sluiceCode,
      ...(issues ? { issues } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    },
  };
}
