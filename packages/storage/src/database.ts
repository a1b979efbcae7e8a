// Opens the job database: SQLite (better-sqlite3, WAL, busy_timeout) by default, PostgreSQL when
// given a postgres:// URL. Write transactions on SQLite begin IMMEDIATE, so two processes that
// read then write never hit SQLITE_BUSY in the middle of a transaction (kysely's own SQLite
// transactions begin DEFERRED, and the upgrade to a write lock is what fails).

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type SqliteDialectConfig,
} from 'kysely';
import type pg from 'pg';
import { cachePreparedStatements } from './dialect.js';
import { requireOptional } from './require-optional.js';
import {
  BACKSTOP_AUTOCHECKPOINT_PAGES,
  JOURNAL_SIZE_LIMIT_BYTES,
  startSqliteCheckpointer,
} from './sqlite-checkpointer.js';
import type { Database } from './schema.js';
import type { D1Like } from './d1/d1-like.js';

export type DialectName = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

/**
 * The driver under kysely, for the hot-path statements of `write-model/` (fixed SQL text,
 * prepared once: named statements over array parameters on PostgreSQL, cached prepared
 * statements run per row inside one transaction on SQLite).
 */
export type NativeHandle =
  | { readonly dialect: 'postgres'; readonly pool: pg.Pool }
  | { readonly dialect: 'sqlite'; readonly handle: SQLite.Database }
  /** Cloudflare D1 (`d1/open-d1.ts`): SQLite's SQL, no interactive transactions, atomic batches. */
  | { readonly dialect: 'd1'; readonly d1: D1Like };

/** What a database can do, read by callers instead of its name. */
export interface DatabaseCapabilities {
  /** `transaction(fn)` works; false on D1, where writes are single statements or batches. */
  readonly interactiveTransactions: boolean;
}

export interface SluiceDatabase {
  readonly db: Db;
  readonly dialect: DialectName;
  readonly native: NativeHandle;
  readonly capabilities: DatabaseCapabilities;
  /** A write transaction (IMMEDIATE on SQLite). Rejects on D1 (capabilities). */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** The PostgreSQL pool, for LISTEN/NOTIFY; undefined on SQLite. */
  readonly pgPool: pg.Pool | undefined;
  /** The SQLite file, for cross-process pollers; undefined on PostgreSQL. */
  readonly sqliteFile: string | undefined;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…` or a SQLite file path (`:memory:` allowed). Default `.sluice/sluice.db`. */
  url?: string | undefined;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** SQLite busy timeout in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * PostgreSQL: NOTIFY listeners of new events (default true). Off when the runtime carries
   * events itself (Valkey Streams): nobody listens, and NOTIFY serialises commits on a lock.
   */
  notifyEvents?: boolean;
  /**
   * SQLite: period of the background WAL checkpoint (default 250 ms; sqlite-checkpointer.ts).
   * 0 leaves checkpoints to SQLite's automatic one inside commits.
   */
  walCheckpointEveryMs?: number;
  /**
   * PostgreSQL: the server ends a session that sits idle inside a transaction this long (default
   * 5000 ms; 0 = never). A process frozen mid-transaction (SIGSTOP, a VM pause, a long GC) would
   * otherwise hold its row locks forever, and the worker that reclaims its expired lease would
   * wait on them. Our transactions never wait on the client for more than a few ms; the frozen
   * one fails when it wakes and its writes are fenced anyway.
   */
  idleInTransactionTimeoutMs?: number;
}

export const DEFAULT_SQLITE_FILE = '.sluice/sluice.db';

export function isPostgresUrl(url: string | undefined): boolean {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

/** Kysely's SQLite dialect, but transactions begin IMMEDIATE (take the write lock up front). */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

function immediateSqliteDialect(config: SqliteDialectConfig): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ImmediateSqliteDriver(config),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

// The drivers are optional peer dependencies: each loads only when its dialect is opened.
const requireDriver = createRequire(import.meta.url);
const loadSqlite = () =>
  requireOptional<typeof SQLite>(requireDriver, 'better-sqlite3', 'a SQLite database');
const loadPg = () =>
  requireOptional<typeof pg>(requireDriver, 'pg', 'a PostgreSQL database (postgres:// URL)');

function openSqlite(file: string, opts: OpenDatabaseOptions): SluiceDatabase {
  const Driver = loadSqlite();
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
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
  // Statements are prepared once per SQL text (dialect.ts): kysely's driver prepares per query.
  const db = new Kysely<Database>({
    dialect: immediateSqliteDialect({ database: cachePreparedStatements(sqlite) }),
  });
  return {
    db,
    dialect: 'sqlite',
    native: { dialect: 'sqlite', handle: sqlite },
    capabilities: { interactiveTransactions: true },
    transaction: (fn) => db.transaction().execute(fn),
    pgPool: undefined,
    sqliteFile: file === ':memory:' ? undefined : file,
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

// json (114) and jsonb (3802) come back as text, as on SQLite, so `fromJson` reads both the same
// way (pg would otherwise hand back a jsonb string scalar already parsed, indistinguishable from
// JSON text). Per pool, not the global `pg.types`.
const JSON_OIDS = new Set([114, 3802]);
function pgTypesOf(driver: typeof pg) {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      JSON_OIDS.has(oid)
        ? (value: string) => value
        : driver.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
  };
}

function openPostgres(url: string, opts: OpenDatabaseOptions): SluiceDatabase {
  const driver = loadPg();
  const pool = new driver.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    types: pgTypesOf(driver),
    idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs ?? 5_000,
    // JIT off: Sluice's statements are short and indexed, and one whose estimate is inflated (a
    // generic plan of the claim guessed millions of rows) was JIT-compiled at ~1.1 s a call.
    // Custom plans only: the hot statements are named, and a generic plan cached while `jobs`
    // was small (a queue analysed idle, then a burst) scanned the whole table in every terminal
    // write and admission read until autovacuum analysed again; planned per run, PostgreSQL
    // scales its row estimates by the table's current size (write-model/planner.test.ts).
    options: `-c jit=off -c plan_cache_mode=force_custom_plan${
      opts.notifyEvents === false ? ' -c sluice.notify=off' : ''
    }`,
  });
  // An idle client error (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor must a checked-out client's (a session the server ended mid-transaction, see
  // idleInTransactionTimeoutMs): its pending query rejects, and the pool drops the client.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    native: { dialect: 'postgres', pool },
    capabilities: { interactiveTransactions: true },
    transaction: (fn) => db.transaction().execute(fn),
    pgPool: pool,
    sqliteFile: undefined,
    // kysely ends the pool only if it ever used it; the write model's statements use the pool
    // directly, so a handle that never ran a kysely query would leave its connections open.
    close: async () => {
      await db.destroy();
      if (!pool.ending) await pool.end();
    },
  };
}

/**
 * Opens one handle. On SQLite use exactly one handle per process: better-sqlite3 is synchronous,
 * so a second handle waiting on the first one's write lock blocks the event loop that the first
 * one needs to commit (a deadlock until busy_timeout). Processes share the file safely.
 */
export function openDatabase(options: OpenDatabaseOptions = {}): SluiceDatabase {
  const url = options.url ?? DEFAULT_SQLITE_FILE;
  return isPostgresUrl(url) ? openPostgres(url, options) : openSqlite(url, options);
}
