// Which driver errors mean "the database cannot answer right now" rather than "this request is
// wrong" or "the code is wrong": a connection refused, reset or timed out, a server shutting
// down or out of connections, a session ended by the idle-in-transaction timeout, a SQLite file
// locked past the busy timeout. The gateway answers those UNAVAILABLE (503, retry) instead of an
// internal error; everything else stays internal. A request that failed this way may or may not
// have been applied when the failure came at commit: a retry is safe with an idempotency key.

/** Node's socket error codes of a connection that failed or dropped. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 53300 too many connections, 57P01–57P03
 * (admin/crash shutdown, cannot connect now), 25P03 idle-in-transaction session timeout.
 */
const PG_STATES = new Set(['53300', '57P01', '57P02', '57P03', '25P03']);

/** node-postgres's own errors for a pool or connection that gave up (they carry no code). */
const PG_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error',
  'Connection ended',
];

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The error and its causes (a wrapped driver error counts), at most a few deep. */
function* chain(error: unknown): Generator<unknown> {
  let current = error;
  for (let depth = 0; depth < 4 && current != null; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

export function pgUnavailable(error: unknown): boolean {
  for (const e of chain(error)) {
    const code = codeOf(e);
    if (code && (SOCKET_CODES.has(code) || PG_STATES.has(code) || code.startsWith('08')))
      return true;
    const message = e instanceof Error ? e.message : '';
    if (PG_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return false;
}

/** better-sqlite3: the file stayed locked past the busy timeout (another writer held it). */
export function sqliteUnavailable(error: unknown): boolean {
  for (const e of chain(error)) {
    const code = codeOf(e);
    if (code === 'SQLITE_BUSY' || code?.startsWith('SQLITE_BUSY_')) return true;
  }
  return false;
}
