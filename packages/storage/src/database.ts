// The job database as the rest of the code holds it: the kysely handle, the dialect that says
// what differs (dialect/storage-dialect.ts), and a transaction that works the way the database
// does. Opened by `openDatabase` (open-database.ts: SQLite, PostgreSQL) or `openD1Database`
// (dialect/d1/open-d1.ts: Cloudflare D1). This module holds only the types: every dialect and
// repository imports it, so it imports no dialect.

import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { StorageCapabilities, StorageDialect } from './dialect/storage-dialect.js';
import type { Database } from './schema.js';

/** The databases `openDatabase` opens from a URL (D1 comes from a binding instead). */
export type DialectName = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

/** `StorageCapabilities` under the name it had before the dialect objects. */
export type DatabaseCapabilities = StorageCapabilities;

export interface SluiceDatabase {
  readonly db: Db;
  /** What differs on this database: its statements and its capabilities. */
  readonly dialect: StorageDialect;
  /** `dialect.capabilities`: what this database can do, read instead of its name. */
  readonly capabilities: StorageCapabilities;
  /** A write transaction (IMMEDIATE on SQLite). Rejects on D1 (capabilities). */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** The PostgreSQL pool, for the gateway's LISTEN connection; undefined elsewhere. */
  readonly pgPool: pg.Pool | undefined;
  /** The SQLite file, for cross-process pollers; undefined elsewhere. */
  readonly sqliteFile: string | undefined;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…` or a SQLite file path (`:memory:` allowed). Default `.sluice/sluice.db`. */
  url?: string | undefined;
  /**
   * SQLite: create the file's folder when it is missing (default true). The CLI passes false
   * except for its default `.sluice/`, so a mistyped path fails instead of creating folders.
   */
  createFolder?: boolean;
  /**
   * PostgreSQL: how long opening one connection may take, handshake included (default 10 000
   * ms), so a URL that points at a server that never answers fails instead of hanging.
   */
  connectTimeoutMs?: number;
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
   * SQLite: period of the background WAL checkpoint (default 250 ms; dialect/sqlite/sqlite-checkpointer.ts).
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

/**
 * `fn` in one transaction where the database has interactive ones; on D1, call by call (each
 * repository call there is one statement or one batch). For a change and the rows that record it
 * (its audit entry): on SQLite and PostgreSQL neither is kept without the other.
 */
export function writeTogether<T>(database: SluiceDatabase, fn: (tx: Db) => Promise<T>): Promise<T> {
  return database.capabilities.interactiveTransactions ? database.transaction(fn) : fn(database.db);
}
