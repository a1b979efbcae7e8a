// A prepared-statement cache under kysely's SQLite driver (open-sqlite.ts hands kysely the
// wrapped handle).

import type { SqliteDatabase, SqliteStatement } from 'kysely';

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
