// What differs between the databases the jobs live in, as ONE object per database, the way
// Kysely's `Dialect` and `DialectAdapter` carry it: SQLite (dialect/sqlite/), PostgreSQL
// (dialect/postgres/) and Cloudflare D1 (dialect/d1/). Repositories and the write model call the
// dialect and read its capabilities; none of them compares a database's name. Two levels:
//
// - `SqlDialect`: what SQL written on a kysely handle needs — column types and casts for the
//   migrations and statements, the accept insert, the atomic batch, the capabilities. Reached
//   from any handle or transaction through its kysely adapter (`dialectOf(tx)`), so a
//   repository that takes a `Db` needs nothing more than the handle it was given.
// - `StorageDialect`: the SqlDialect plus the write model's fixed statements, bound to the
//   driver underneath (the claim, the attempt write, snapshots, the exhausted sweep's read, the
//   shared limits, the accept unit, the work signal). It is `SluiceDatabase.dialect`.
//
// The records these methods carry live in modules that import no database code (attempt-types,
// claim-shared, snapshot-row, event-rows, accept-rows), so this seam makes no import circle.

import type {
  ColumnDefinitionBuilder,
  CompiledQuery,
  Kysely,
  QueryResult,
  RawBuilder,
} from 'kysely';
import type {
  AcceptedJob,
  AcceptedWrite,
  AcceptEventRow,
  EventIdRow,
} from '../repos/accept-rows.js';
import type { Database } from '../schema.js';
import type { AttemptWrite, AttemptWriteResult } from '../write-model/attempt-types.js';
import type { ClaimedJob, ClaimOptions } from '../write-model/claim-shared.js';
import type { SnapshotRow } from '../write-model/snapshot-row.js';

type Db = Kysely<Database>;

/** Names for logs and test labels. Never branch on one: read `capabilities` instead. */
export type StorageDialectName = 'sqlite' | 'postgres' | 'd1';

/** What a database can do, read by callers instead of its name. */
export interface StorageCapabilities {
  /** `transaction(fn)` works; false on D1, where writes are single statements or batches. */
  readonly interactiveTransactions: boolean;
  /** Several statements run atomically without a transaction (`SqlDialect.atomicBatch`: D1). */
  readonly atomicBatch: boolean;
  /**
   * Several write transactions run at once (PostgreSQL's row locks). False where the database
   * takes one writer at a time (SQLite's write lock, D1): a second writer in flight only queues.
   */
  readonly concurrentWriters: boolean;
  /** `select … for update`: a transaction can lock the rows it will write, in an order it picks. */
  readonly rowLocks: boolean;
  /** LISTEN/NOTIFY: inserts can wake listeners (migrations add the triggers where this holds). */
  readonly listenNotify: boolean;
  /** Parameters one statement may bind (SQLite 32,766; PostgreSQL 65,535; D1 100). */
  readonly maxBoundParameters: number;
}

/**
 * A database without interactive transactions that runs a list of statements atomically (D1's
 * `batch()`). A repository whose write takes several statements gives such a database one batch.
 */
export interface AtomicBatch {
  run<R = Record<string, unknown>>(queries: readonly CompiledQuery[]): Promise<QueryResult<R>[]>;
}

/** Rows of a table, and its bytes (indexes included) where the database can tell them cheaply. */
export interface TableStats {
  table: string;
  rows: number;
  /** Undefined where the database cannot tell (D1; a SQLite built without `dbstat`). */
  bytes: number | undefined;
}

/** An AFTER INSERT trigger, per row, running `statement` when `when` holds (`new.` is the row). */
export interface InsertTrigger {
  name: string;
  table: string;
  when: string;
  statement: string;
}

/**
 * A table no statement may UPDATE, and DELETE only rows for which `deleteWhen` holds (an SQL
 * condition on `old.`): the audit log, whose only way out is a recorded prune horizon.
 */
export interface GuardedTable {
  table: string;
  deleteWhen: string;
}

/** The dialect as far as SQL written on a kysely handle needs it (no connection of its own). */
export interface SqlDialect {
  readonly name: StorageDialectName;
  readonly capabilities: StorageCapabilities;
  /**
   * The driver could not answer right now (connection refused, dropped or timed out, server
   * shutting down, file locked): a retryable UNAVAILABLE, not an internal error (unavailable.ts).
   */
  isUnavailable(error: unknown): boolean;
  /** Column type of stored JSON documents (`jsonb` checks them; SQLite keeps text). */
  readonly jsonType: string;
  /** Column type of epoch-millisecond numbers that are computed on (the limit buckets). */
  readonly floatType: string;
  /** A generated integer primary key (the events' global id, in insertion order). */
  identity(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** `value` as the JSON column type (a cast where the column checks its JSON). */
  asJson(value: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The RETURNING list of every column of `table` in an `update … from` (SQLite: `*` only). */
  returningAll(table: string): RawBuilder<unknown>;
  /**
   * One chunk of the accept group commit inside the caller's transaction: the jobs insert (`on
   * conflict do nothing`) and the event rows of the jobs it wrote. Returns a row per written job
   * (event_id null) and one per event row.
   */
  insertAccepted(
    tx: Db,
    jobs: readonly AcceptedJob[],
    events: readonly AcceptEventRow[],
    at: string,
  ): Promise<EventIdRow[]>;
  /** Present exactly where `capabilities.atomicBatch` holds. */
  readonly atomicBatch?: AtomicBatch | undefined;
  /** The text of member `field` of the JSON text `expr` (an expression an index can hold). */
  jsonText(expr: string, field: string): string;
  /** A FROM item: one row per element of the JSON array `expr`, its text in column `value`. */
  jsonArrayElements(expr: string, alias: string): string;
  /** The statements that create `trigger` (migrations). */
  insertTrigger(trigger: InsertTrigger): string[];
  /**
   * A FROM item: one row per top-level key of the JSON object `expr`, in columns `key` and
   * `value` (a string as itself, any other value as JSON text): the metadata index.
   */
  jsonObjectEntries(expr: string, alias: string): string;
  /** The statements that make `t` refuse UPDATE and guarded DELETE (migrations). */
  guardTrigger(t: GuardedTable): string[];
  /**
   * Rows and bytes of `tables` (retention metrics). PostgreSQL: the statistics collector's live
   * row estimate and `pg_total_relation_size`, both O(1). SQLite: `count(*)` and `dbstat`'s
   * page sizes, both O(table): read at the sweeper's pace, never per scrape.
   */
  tableStats(db: Db, tables: readonly string[]): Promise<TableStats[]>;
}

/** A job the exhausted sweep dead-letters (running, lease lapsed, no attempt left). */
export interface ExhaustedJobRow {
  id: string;
  tenant_id: string;
  kind: string;
  epoch: number | string;
  last_seq: number | string;
  attempts: number | string;
  attempt_id: string | null;
}

/** A shared-limit slot to take (repos/limits.ts): times in epoch milliseconds. */
export interface SlotArgs {
  key: string;
  holder: string;
  max: number;
  now: number;
  exp: number;
}

/**
 * A slot given back and/or the waiting list of its key woken (repos/limits.ts `wakeWaiters`):
 * `holder` null gives nothing back; `now` in epoch milliseconds, `at` the due time (ISO text).
 */
export interface WakeArgs {
  key: string;
  holder: string | null;
  /** The scope the key counts (`waiting.reason`, `waiting.name` of the jobs that wait on it). */
  reason: string;
  name: string;
  max: number;
  now: number;
  at: string;
}

/** A token to take from a bucket (repos/limits.ts): `rate` per second, `burst` capacity. */
export interface TokenArgs {
  key: string;
  burst: number;
  now: number;
  rate: number;
}

/** A database's whole dialect: `SqlDialect` plus the write model's statements on its driver. */
export interface StorageDialect extends SqlDialect {
  /** Starts up to `opts.limit` claimable jobs under a lease (write-model/claim-jobs.ts). */
  claimJobs(
    opts: ClaimOptions,
    at: string,
    lease: string,
    own: string | null,
  ): Promise<ClaimedJob[]>;
  /** Hands claimed jobs back to the queue, fenced by the epoch their claim set; how many. */
  unclaimJobs(
    leases: readonly { jobId: string; epoch: number }[],
    due: string | null,
    at: string,
  ): Promise<number>;
  /** The fenced attempt writes (write-model/attempt-write.ts), checked already. */
  writeAttempts(writes: readonly AttemptWrite[], at: string): Promise<AttemptWriteResult>;
  /** The snapshot rows of these jobs (missing ids are absent). */
  loadSnapshots(ids: readonly string[]): Promise<SnapshotRow[]>;
  /** Up to `limit` jobs the exhausted sweep dead-letters. */
  exhaustedJobs(at: string, limit: number): Promise<ExhaustedJobRow[]>;
  /** Takes a slot if fewer than `max` are held, in one atomic step; true when taken. */
  acquireSlot(args: SlotArgs): Promise<boolean>;
  /**
   * Gives `holder`'s slot back and makes due the key's waiters its free slots can start, in one
   * atomic step (PostgreSQL: under the key's lock, as `acquireSlot`); how many jobs were woken.
   */
  wakeWaiters(args: WakeArgs): Promise<number>;
  /** Takes a token if one is left, in one statement; true when taken. */
  takeToken(args: TokenArgs): Promise<boolean>;
  /** The accept group commit as one atomic unit per call (a transaction) or per chunk (a batch). */
  acceptJobs(
    jobs: readonly AcceptedJob[],
    now: number,
    opts: { outbox?: boolean | undefined; outboxScheduled?: boolean | undefined },
  ): Promise<AcceptedWrite>;
  /**
   * Calls `wake` whenever new work may have arrived (a NOTIFY, a commit seen on the file), until
   * the returned stop is called. A database with no such signal never calls it.
   */
  watchWork(wake: () => void): () => Promise<void>;
  /** Wakes the watchers of every process (jobs became claimable outside an insert). */
  notifyWork(): Promise<void>;
  /**
   * The same dialect over a wrapped driver (the better-sqlite3 handle, the pg pool, the D1
   * binding) and kysely handle: every fixed statement then goes through `wrap`'s object. A test
   * seam — a simulated crash makes one worker's statements fail from a point on.
   */
  withDriver(wrap: <T extends object>(driver: T) => T, db: Db): StorageDialect;
}

/** What a kysely adapter opened by this package carries (each dialect's open function). */
interface CarriesDialect {
  readonly sluiceDialect?: SqlDialect;
}

/** Kysely's adapter for a database, carrying its SqlDialect so every handle can reach it. */
export function carryingDialect<A extends object>(adapter: A, dialect: SqlDialect): A {
  return Object.assign(adapter, { sluiceDialect: dialect });
}

/** The dialect of a kysely handle or transaction opened by this package. */
export function dialectOf(db: { getExecutor(): { readonly adapter: unknown } }): SqlDialect {
  const dialect = (db.getExecutor().adapter as CarriesDialect).sluiceDialect;
  if (!dialect)
    throw new Error(
      'this kysely handle was not opened by @sluice/storage (openDatabase, openD1Database)',
    );
  return dialect;
}

/**
 * Rows per statement for a statement binding `perRow` parameters a row (plus `fixed` once):
 * `preferred`, or fewer where the database binds fewer parameters (D1: 100). At least 1.
 */
export function rowsPerStatement(
  db: { getExecutor(): { readonly adapter: unknown } },
  preferred: number,
  perRow: number,
  fixed = 0,
): number {
  const limit = dialectOf(db).capabilities.maxBoundParameters;
  return Math.max(1, Math.min(preferred, Math.floor((limit - fixed) / perRow)));
}
