// The better-sqlite3 handle under kysely, for the write model's fixed statements: prepared once
// per handle and SQL text, run synchronously while kysely's connection is held (its mutex), so
// they never interleave with a kysely transaction that is waiting between two of its statements.

import type SQLite from 'better-sqlite3';
import type { Db } from '../../database.js';

const caches = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

/** The statement for this text, prepared on first use. */
export function prepared(handle: SQLite.Database, text: string): SQLite.Statement {
  let cache = caches.get(handle);
  if (!cache) caches.set(handle, (cache = new Map()));
  let stmt = cache.get(text);
  if (!stmt) cache.set(text, (stmt = handle.prepare(text)));
  return stmt;
}

/** Runs `fn` inside one `BEGIN IMMEDIATE` transaction, with kysely's connection held. */
export function immediately<T>(db: Db, handle: SQLite.Database, fn: () => T): Promise<T> {
  return db.connection().execute(async () => handle.transaction(fn).immediate());
}

/** Runs `fn` with kysely's connection held (reads, or a single statement). */
export function withHandle<T>(db: Db, fn: () => T): Promise<T> {
  return db.connection().execute(async () => fn());
}
