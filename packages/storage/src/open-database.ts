// Opens the job database from a URL: SQLite (better-sqlite3, WAL, busy_timeout) by default,
// PostgreSQL when given a postgres:// URL. Each is its dialect's opener (dialect/sqlite/,
// dialect/postgres/); D1 is opened from its binding (dialect/d1/open-d1.ts).

import { SluiceError } from '@sluice/contracts';
import type { OpenDatabaseOptions, SluiceDatabase } from './database.js';
import { openPostgres } from './dialect/postgres/open-postgres.js';
import { openSqlite } from './dialect/sqlite/open-sqlite.js';

export const DEFAULT_SQLITE_FILE = '.sluice/sluice.db';

export function isPostgresUrl(url: string | undefined): boolean {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

/** Where a database URL points: a PostgreSQL server or a SQLite file. */
export type DatabaseLocation = { kind: 'postgres'; url: string } | { kind: 'sqlite'; file: string };

/**
 * `postgres://…` / `postgresql://…`, `sqlite:<path>` (`sqlite:///abs/path` too), `file:///…`, or
 * a plain path (`:memory:` included). Anything else with a scheme (`mysql://…`, `redis://…`) is
 * undefined: read as a file name it would have become a SQLite file called `mysql:`.
 */
export function parseDatabaseUrl(url: string): DatabaseLocation | undefined {
  if (isPostgresUrl(url)) return { kind: 'postgres', url };
  if (url === ':memory:') return { kind: 'sqlite', file: url };
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/.exec(url);
  if (sqlite?.[1]) return { kind: 'sqlite', file: sqlite[1] };
  if (url.startsWith('file://'))
    return { kind: 'sqlite', file: decodeURIComponent(new URL(url).pathname) };
  // A scheme is two or more letters then ':' (one letter is a Windows drive, `C:\…`).
  if (url === '' || /^[a-z][a-z0-9+.-]+:/i.test(url)) return undefined;
  return { kind: 'sqlite', file: url };
}

/** What to call the database in a message: `PostgreSQL at db:5432`, `SQLite database x.db`. */
export function describeDatabaseUrl(url: string): string {
  const where = parseDatabaseUrl(url);
  if (!where) return 'the database';
  if (where.kind === 'sqlite') return `SQLite database ${where.file}`;
  const u = new URL(where.url);
  return `PostgreSQL at ${u.hostname || 'localhost'}:${u.port || 5432}`;
}

export const DATABASE_URL_FORMS = 'postgres://…, sqlite:… or a file path';

/**
 * Opens one handle. On SQLite use exactly one handle per process: better-sqlite3 is synchronous,
 * so a second handle waiting on the first one's write lock blocks the event loop that the first
 * one needs to commit (a deadlock until busy_timeout). Processes share the file safely.
 */
export function openDatabase(options: OpenDatabaseOptions = {}): SluiceDatabase {
  const url = options.url ?? DEFAULT_SQLITE_FILE;
  const where = parseDatabaseUrl(url);
  if (!where) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `a database URL must be ${DATABASE_URL_FORMS}, got "${url}"`,
    );
  }
  return where.kind === 'postgres'
    ? openPostgres(where.url, options)
    : openSqlite(where.file, options);
}
