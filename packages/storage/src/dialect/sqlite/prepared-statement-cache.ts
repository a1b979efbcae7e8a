import {
  PostgresAdapter,
  type CompiledQuery,
  type QueryResult,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';

/** Which dialect a kysely handle (or transaction) talks to. */
export function isPostgres(db: { getExecutor(): { readonly adapter: unknown } }): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * A database without interactive transactions that runs a list of statements atomically (D1's
 * `batch()`): its kysely adapter carries this capability (d1/open-d1.ts). A repository whose
 * write takes several statements gives such a database one batch of them instead.
 */
export interface AtomicBatch {
  run<R = Record<string, unknown>>(queries: readonly CompiledQuery[]): Promise<QueryResult<R>[]>;
}

/** The handle's atomic batch when it has no interactive transactions; undefined otherwise. */
export function atomicBatchOf(db: {
  getExecutor(): { readonly adapter: unknown };
}): AtomicBatch | undefined {
  return (db.getExecutor().adapter as { readonly atomicBatch?: AtomicBatch }).atomicBatch;
}

/**
 * Rows per statement for a statement binding `perRow` parameters a row (plus `fixed` once):
 * `preferred`, or fewer where the database binds fewer parameters (D1: 100 per statement; its
 * adapter declares `maxBoundParameters`). Always at least 1.
 */
export function rowsPerStatement(
  db: { getExecutor(): { readonly adapter: unknown } },
  preferred: number,
  perRow: number,
  fixed = 0,
): number {
  const limit = (db.getExecutor().adapter as { readonly maxBoundParameters?: number })
    .maxBoundParameters;
  if (limit === undefined) return preferred;
  return Math.max(1, Math.min(preferred, Math.floor((limit - fixed) / perRow)));
}

/** The better-sqlite3 statement as far as the cache needs it: `busy` while an iterator is open. */
interface CacheableStatement extends SqliteStatement {
  readonly busy?: boolean;
}

/**
 * Kysely's SQLite driver prepares every statement again (`db.prepare(sql)` per query): on the
 * worker's hot path that was 15–20 % of its CPU. This wraps the handle so statements are
 * memoized by SQL text in a bounded LRU (kysely's `in (?, ?, …)` lists make many shapes, so the
 * bound matters). A better-sqlite3 statement holds no state between `run`/`all` calls (kysely
 * binds its parameters on every call), so sharing it is safe, except while an `iterate()` over it
 * is still open (`busy`): then a fresh, uncached statement is handed out instead.
 */
export function cachePreparedStatements<D extends SqliteDatabase>(
  database: D,
  maxEntries = 500,
): SqliteDatabase & { readonly cacheSize: number } {
  const cache = new Map<string, CacheableStatement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      const hit = cache.get(sql);
      if (hit) {
        if (hit.busy) return database.prepare(sql);
        // Map order is insertion order: re-inserting marks the entry most recently used.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const stmt = database.prepare(sql) as CacheableStatement;
      cache.set(sql, stmt);
      if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      return stmt;
    },
    get cacheSize() {
      return cache.size;
    },
  };
}
