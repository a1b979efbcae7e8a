// The one error formatter of the `sluice` command: every failure, whatever its path (argument
// parsing, config loading, a database or port that is not there, the gateway's answer), becomes
// one line on stderr and a documented exit code. No stack unless SLUICE_DEBUG=1 asks for it.

import { isMissingDependencyError, isSluiceError, type ErrorCode } from '@sluice/contracts';
import { retryableReason } from './wait-for-service.js';

/** Documented in docs/configuration.md (Exit codes); scripts branch on these. */
export const EXIT_CODES = {
  /** Done. */
  ok: 0,
  /** Something failed at run time that is none of the below (a bug, an unexpected answer). */
  failure: 1,
  /** The command line is wrong: unknown command or flag, missing or malformed argument. */
  usage: 2,
  /** The configuration is wrong: config file, environment, runtime name, missing driver. */
  config: 3,
  /** A service is not there: database, Redis, the gateway, or the port is taken. */
  unavailable: 4,
  /** The gateway answered and refused: not found, conflict, unauthorised, invalid input. */
  refused: 5,
} as const;
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** A wrong command line found after parsing (a missing flag a subcommand needs, say). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function isUsageError(value: unknown): value is UsageError {
  return value instanceof UsageError || (value as { name?: unknown } | null)?.name === 'UsageError';
}

interface NodeSystemError {
  code?: unknown;
  message?: unknown;
  port?: unknown;
  address?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** The first `code` of a system error along the cause chain (fetch wraps ECONNREFUSED twice). */
function systemCode(error: unknown): NodeSystemError | undefined {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (typeof e === 'object' && e !== null && !seen.has(e)) {
    seen.add(e);
    const s = e as NodeSystemError;
    if (typeof s.code === 'string' && /^E[A-Z]+$/.test(s.code)) return s;
    // AggregateError (happy-eyeballs connect to ::1 and 127.0.0.1): the first inner error.
    if (Array.isArray(s.errors) && s.errors.length > 0) e = s.errors[0];
    else e = s.cause;
  }
  return undefined;
}

// PostgreSQL SQLSTATEs that mean "the database is not there for you", not "your query is wrong".
const PG_UNAVAILABLE = new Set(['3D000', '28P01', '28000', '57P03', '53300']);

const REMOTE_REFUSALS = new Set<ErrorCode>([
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'VERSION_NOT_ROUTABLE',
]);

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** What to print and which exit code to return for anything thrown. Never throws. */
export function formatCliError(error: unknown): { line: string; exitCode: ExitCode } {
  const fail = (exitCode: ExitCode, message: string) => ({
    line: `sluice: ${oneLine(message)}`,
    exitCode,
  });
  if (isUsageError(error)) return fail(EXIT_CODES.usage, error.message);
  if (isMissingDependencyError(error)) return fail(EXIT_CODES.config, error.message);
  const sys = systemCode(error);
  if (sys?.code === 'EADDRINUSE') {
    const where = sys.port === undefined ? '' : ` ${String(sys.port)}`;
    return fail(
      EXIT_CODES.unavailable,
      `port${where} is already in use (choose another with --port or PORT)`,
    );
  }
  if (isSluiceError(error)) {
    if (error.code === 'INVALID_CONFIG') return fail(EXIT_CODES.config, error.message);
    if (error.code === 'UNAVAILABLE' || error.code === 'TIMEOUT') {
      const why =
        sys?.code === 'ECONNREFUSED'
          ? ' (connection refused)'
          : sys
            ? ` (${String(sys.code)})`
            : '';
      return fail(EXIT_CODES.unavailable, `${error.message}${why}`);
    }
    // Our own argument checks throw BAD_REQUEST without an HTTP status; the gateway's carry one.
    const remote = typeof error.details?.httpStatus === 'number';
    if (error.code === 'BAD_REQUEST' && !remote) return fail(EXIT_CODES.usage, error.message);
    if (REMOTE_REFUSALS.has(error.code))
      return fail(EXIT_CODES.refused, `${error.code}: ${error.message}`);
    return fail(EXIT_CODES.failure, `${error.code}: ${error.message}`);
  }
  if (sys) {
    const address = typeof sys.address === 'string' ? ` ${sys.address}` : '';
    const port = sys.port === undefined ? '' : `:${String(sys.port)}`;
    const what =
      sys.code === 'ECONNREFUSED'
        ? `connection refused by${address}${port}`
        : String(sys.message ?? sys.code);
    return fail(EXIT_CODES.unavailable, `cannot reach a service: ${what}`);
  }
  // A connection lost after the start (pg says only "Connection terminated unexpectedly").
  const lost = retryableReason(error);
  if (lost) return fail(EXIT_CODES.unavailable, `a database or Redis connection failed: ${lost}`);
  const pgCode = (error as { code?: unknown } | null)?.code;
  if (typeof pgCode === 'string' && PG_UNAVAILABLE.has(pgCode)) {
    return fail(EXIT_CODES.unavailable, `database unavailable: ${(error as Error).message}`);
  }
  if (error instanceof Error) {
    return fail(EXIT_CODES.failure, `${error.name}: ${error.message}`);
  }
  return fail(EXIT_CODES.failure, String(error));
}
