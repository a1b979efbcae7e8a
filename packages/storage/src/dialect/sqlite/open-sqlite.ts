// Opens a SQLite job database: better-sqlite3 under kysely, WAL, busy_timeout, and write
// transactions that begin IMMEDIATE, so two processes that read then write never hit
// SQLITE_BUSY in the middle of a transaction (kysely's SQLite transactions begin DEFERRED).

import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { SluiceError } from '@sluice/contracts';
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type SqliteDialectConfig,
} from 'kysely';
import type { OpenDatabaseOptions, SluiceDatabase } from '../../database.js';
import { requireOptional } from '../../require-optional.js';
import type { Database } from '../../schema.js';
import { carryingDialect } from '../storage-dialect.js';
import { cachePreparedStatements } from './prepared-statement-cache.js';
import {
  BACKSTOP_AUTOCHECKPOINT_PAGES,
  JOURNAL_SIZE_LIMIT_BYTES,
  startSqliteCheckpointer,
} from './sqlite-checkpointer.js';
import { createSqliteDialect } from './sqlite-dialect.js';
import { SQLITE_SQL } from './sqlite-sql.js';

/** Kysely's SQLite driver, but transactions begin IMMEDIATE (take the write lock up front). */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Kysely's SQLite dialect with that driver; its adapter carries SQLite's SqlDialect. */
function immediateSqliteDialect(config: SqliteDialectConfig): Dialect {
  return {
    createAdapter: () => carryingDialect(new SqliteAdapter(), SQLITE_SQL),
    createDriver: () => new ImmediateSqliteDriver(config),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

// The driver is an optional peer dependency: it loads only when a SQLite database is opened.
const requireDriver = createRequire(import.meta.url);
const loadSqlite = () =>
  requireOptional<typeof SQLite>(requireDriver, 'better-sqlite3', 'a SQLite database');

/**
 * The file's folder must exist unless asked to create it: a mistyped path would otherwise leave
 * a tree of folders behind (and a command that only lists keys would write a database there).
 */
function ensureFolder(file: string, create: boolean): void {
  const folder = dirname(resolve(file));
  if (existsSync(folder)) return;
  if (create) return void mkdirSync(folder, { recursive: true });
  throw new SluiceError(
    'UNAVAILABLE',
    `SQLite database ${file}: its folder ${folder} does not exist (create it, or choose another path)`,
  );
}

export function openSqlite(file: string, opts: OpenDatabaseOptions): SluiceDatabase {
  const Driver = loadSqlite();
  if (file !== ':memory:') ensureFolder(file, opts.createFolder ?? true);
  const sqlite = new Driver(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  // NORMAL in WAL mode: durable across a process crash; an OS crash may lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const everyMs = opts.walCheckpointEveryMs ?? 250;
  const checkpointer =
    file !== ':memory:' && everyMs > 0 ? startSqliteCheckpointer(file, everyMs) : undefined;
  if (checkpointer) {
    sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
    sqlite.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
  }
  // Statements are prepared once per SQL text (prepared-statement-cache.ts): kysely's driver
  // prepares per query.
  const db = new Kysely<Database>({
    dialect: immediateSqliteDialect({ database: cachePreparedStatements(sqlite) }),
  });
  const sqliteFile = file === ':memory:' ? undefined : file;
  const dialect = createSqliteDialect(sqlite, db, sqliteFile);
  return {
    db,
    dialect,
    capabilities: dialect.capabilities,
    transaction: (fn) => db.transaction().execute(fn),
    pgPool: undefined,
    sqliteFile,
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}
