// Per-job cost, client side: what a child process sends to its database, counted in every run
// (a counter increment per call, unlike BENCH_SQL_STATS's per-shape tally with timers, which stays
// a diagnostic). Installed once per child process by child-main, for every system alike; a child
// that never touches a database reports zeros.
//
// PostgreSQL (pg): one round trip per `Client.query` call (pg sends one query at a time per
// connection and waits for its ReadyForQuery; `Pool.query` goes through it too), and the
// statements in it: a parameterised or named (prepared) query is one statement, a simple-protocol
// text may hold several separated by `;`. SQLite (better-sqlite3): every execution of a prepared
// statement (run/all/get/iterate) and every statement of an `exec`. better-sqlite3's
// `transaction()` runs its BEGIN and COMMIT (SAVEPOINT and RELEASE when nested) through the same
// statement class, so a native transaction counts like one kysely sends as `begin immediate` …
// `commit`.
import SQLite from 'better-sqlite3';
import pg from 'pg';

export interface StatementCounts {
  pgStatements: number;
  pgRoundTrips: number;
  sqliteStatements: number;
}

const counts: StatementCounts = { pgStatements: 0, pgRoundTrips: 0, sqliteStatements: 0 };

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Statements in one pg query call, mirroring pg's own choice of protocol (Query.requiresPreparation). */
export function pgStatementsIn(args: readonly unknown[]): number {
  const first = args[0];
  const config =
    typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
  const text = typeof first === 'string' ? first : config.text;
  const values = Array.isArray(args[1]) ? args[1] : config.values;
  const extended = Boolean(config.name) || (Array.isArray(values) && values.length > 0);
  return extended || typeof text !== 'string' ? 1 : statementsInText(text);
}

/**
 * Statements in a simple-protocol text, separated by `;` (a `;` inside a literal would
 * over-count; none of the code measured here sends one).
 */
export function statementsInText(text: string): number {
  if (!text.includes(';')) return 1;
  return Math.max(1, text.split(';').filter((part) => part.trim() !== '').length);
}

function patchPg(): void {
  const client = pg.Client.prototype as unknown as Record<string, Method>;
  const query = client.query as Method;
  client.query = function (this: unknown, ...args: unknown[]) {
    counts.pgRoundTrips++;
    counts.pgStatements += pgStatementsIn(args);
    return query.apply(this, args);
  };
}

function patchSqlite(): void {
  const probe = new SQLite(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, Method>;
  probe.close();
  for (const name of ['run', 'all', 'get', 'iterate']) {
    const original = statement[name] as Method;
    statement[name] = function (this: unknown, ...args: unknown[]) {
      counts.sqliteStatements++;
      return original.apply(this, args);
    };
  }
  const database = SQLite.prototype as unknown as Record<string, Method>;
  const exec = database.exec as Method;
  database.exec = function (this: unknown, ...args: unknown[]) {
    counts.sqliteStatements += typeof args[0] === 'string' ? statementsInText(args[0]) : 1;
    return exec.apply(this, args);
  };
}

let installed = false;

/** Installs the counters (once per process) and returns a reader of the totals so far. */
export function installStatementCounter(): () => StatementCounts {
  if (!installed) {
    patchPg();
    patchSqlite();
    installed = true;
  }
  return () => ({ ...counts });
}

/** What happened between two readings. */
export function countsSince(before: StatementCounts, after: StatementCounts): StatementCounts {
  return {
    pgStatements: after.pgStatements - before.pgStatements,
    pgRoundTrips: after.pgRoundTrips - before.pgRoundTrips,
    sqliteStatements: after.sqliteStatements - before.sqliteStatements,
  };
}
