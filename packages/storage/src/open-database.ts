// Opens the job database from a URL: SQLite (better-sqlite3, WAL, busy_timeout) by default,
// PostgreSQL when given a postgres:// URL. Each is its dialect's opener (dialect/sqlite/,
// dialect/postgres/); D1 is opened from its binding (dialect/d1/open-d1.ts).

import { SluiceError } from '@sluice/contracts';
import type { OpenDatabaseOptions, SluiceDatabase } from './database.js';
import { DATABASE_URL_FORMS, DEFAULT_SQLITE_FILE, parseDatabaseUrl } from './database-url.js';
import { openPostgres } from './dialect/postgres/open-postgres.js';
import { openSqlite } from './dialect/sqlite/open-sqlite.js';

export {
  DATABASE_URL_FORMS,
  DEFAULT_SQLITE_FILE,
  describeDatabaseUrl,
  isPostgresUrl,
  parseDatabaseUrl,
  type DatabaseLocation,
} from './database-url.js';

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
