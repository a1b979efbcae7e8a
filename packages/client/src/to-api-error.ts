// Turns whatever a gateway call threw (a tRPC client error, a failed fetch, an HTTP error body)
// into one `SluiceApiError` with a code from ERROR_CODES, so callers switch on `code` only.

import { isErrorCode, isSluiceError, type ErrorCode } from '@sluice/contracts/wire';
import { SluiceApiError, type InputIssue } from './errors.js';

const TRPC_CODES: Readonly<Record<string, ErrorCode>> = {
  PARSE_ERROR: 'BAD_REQUEST',
  BAD_REQUEST: 'BAD_REQUEST',
  UNPROCESSABLE_CONTENT: 'BAD_REQUEST',
  UNSUPPORTED_MEDIA_TYPE: 'BAD_REQUEST',
  METHOD_NOT_SUPPORTED: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PRECONDITION_FAILED: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  TOO_MANY_REQUESTS: 'RATE_LIMITED',
  TIMEOUT: 'TIMEOUT',
  CLIENT_CLOSED_REQUEST: 'UNAVAILABLE',
  SERVICE_UNAVAILABLE: 'UNAVAILABLE',
  BAD_GATEWAY: 'UNAVAILABLE',
  GATEWAY_TIMEOUT: 'TIMEOUT',
  NOT_IMPLEMENTED: 'NOT_FOUND',
  INTERNAL_SERVER_ERROR: 'INTERNAL',
};

/** The error code an HTTP status stands for. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
    case 422:
      return 'BAD_REQUEST';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 416:
      return 'RANGE_NOT_SATISFIABLE';
    case 429:
      return 'RATE_LIMITED';
    case 408:
    case 504:
      return 'TIMEOUT';
    case 502:
    case 503:
      return 'UNAVAILABLE';
    default:
      return status >= 400 && status < 500 ? 'BAD_REQUEST' : 'INTERNAL';
  }
}

/** Codes worth retrying with backoff (a watch reconnects on these, and on network failures). */
export function isTransientCode(code: ErrorCode): boolean {
  return code === 'UNAVAILABLE' || code === 'TIMEOUT' || code === 'RATE_LIMITED';
}

type ErrorData =
  | { code?: unknown; httpStatus?: unknown; sluiceCode?: unknown; issues?: unknown }
  | null
  | undefined;

/** A Sluice code the gateway put in the error data, when it did. */
function sluiceCodeOf(data: ErrorData): ErrorCode | undefined {
  if (!data) return undefined;
  if (isErrorCode(data.sluiceCode)) return data.sluiceCode;
  return undefined;
}

/**
 * The HTTP status of a refused SSE subscription: the gateway answers a rate-limited one 429
 * before any stream, and the `eventsource` package reports it as an error event whose `code` is
 * the status (a browser's EventSource says nothing, and the error stays UNAVAILABLE).
 */
function eventSourceStatus(cause: unknown): number {
  if (typeof cause !== 'object' || cause === null) return 0;
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : 0;
}

export function toApiError(error: unknown): SluiceApiError {
  if (error instanceof SluiceApiError) return error;
  if (isSluiceError(error)) {
    return new SluiceApiError(error.code, error.message, 0, error);
  }
  if (typeof error === 'object' && error !== null && 'name' in error) {
    const e = error as { name: unknown; message?: unknown; data?: ErrorData; cause?: unknown };
    const message = typeof e.message === 'string' ? e.message : String(error);
    if (e.name === 'TRPCClientError') {
      const data = e.data;
      const status =
        typeof data?.httpStatus === 'number' ? data.httpStatus : eventSourceStatus(e.cause);
      const trpcCode = typeof data?.code === 'string' ? data.code : undefined;
      // No data: the call never got a tRPC answer (socket closed, fetch failed).
      const code =
        sluiceCodeOf(data) ??
        (trpcCode ? (TRPC_CODES[trpcCode] ?? 'INTERNAL') : status ? codeForStatus(status) : null);
      const issues = Array.isArray(data?.issues) ? (data.issues as InputIssue[]) : undefined;
      return new SluiceApiError(code ?? 'UNAVAILABLE', message, status, error, issues);
    }
    if (e.name === 'AbortError' || e.name === 'TimeoutError') {
      return new SluiceApiError('TIMEOUT', message, 0, error);
    }
    if (error instanceof TypeError) {
      // fetch rejects with a TypeError when the network fails.
      return new SluiceApiError('UNAVAILABLE', message, 0, error);
    }
  }
  return new SluiceApiError(
    'INTERNAL',
    error instanceof Error ? error.message : String(error),
    0,
    error,
  );
}

/** The error an HTTP error response stands for, reading a JSON error body when there is one. */
export async function responseError(response: Response): Promise<SluiceApiError> {
  let code = codeForStatus(response.status);
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const text = await response.text();
    const body = JSON.parse(text) as unknown;
    const found = findCodeAndMessage(body);
    if (found.code) code = found.code;
    if (found.message) message = found.message;
  } catch {
    // Not JSON: the status decides.
  }
  return new SluiceApiError(code, message, response.status);
}

function findCodeAndMessage(body: unknown): { code?: ErrorCode; message?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const b = body as { code?: unknown; message?: unknown; error?: unknown };
  if (typeof b.error === 'object' && b.error !== null) return findCodeAndMessage(b.error);
  return {
    ...(isErrorCode(b.code) ? { code: b.code } : {}),
    ...(typeof b.message === 'string'
      ? { message: b.message }
      : typeof b.error === 'string'
        ? { message: b.error }
        : {}),
  };
}
