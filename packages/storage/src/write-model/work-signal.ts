// "New jobs may have arrived": how an embedded worker sleeps between empty claims without a busy
// poll. PostgreSQL: a dedicated connection LISTENs on the jobs channel (an insert trigger
// NOTIFYs it, migration 0005). SQLite: a file watch on the write-ahead log, which every commit of
// any process appends to. Either way the wait also ends after `ms`: the poll stays the fallback
// for what a signal cannot see (a retry's due time passing, a lost connection, a missed watch).

import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type pg from 'pg';
import { sql } from 'kysely';
import type { SluiceDatabase } from '../database.js';
import { JOBS_CHANNEL } from '../migration-write-model.js';

export interface WorkSignal {
  /** Resolves after `ms`, or earlier when work may have arrived (or `signal` aborts). */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

function createWaiters() {
  const waiters = new Set<() => void>();
  return {
    wake() {
      for (const w of [...waiters]) w();
    },
    wait(ms: number, signal?: AbortSignal): Promise<void> {
      return new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    },
  };
}

function pgSignal(pool: pg.Pool, wake: () => void): () => Promise<void> {
  let client: pg.PoolClient | undefined;
  let closed = false;
  let delay = 200;
  // The connect in flight: `close` awaits it, because a client checked out after `close` would
  // never be released and the pool's `end()` (the database's close) would wait for it forever.
  let connecting: Promise<void> | undefined;
  const connect = async (): Promise<void> => {
    if (closed) return;
    let c: pg.PoolClient | undefined;
    try {
      c = await pool.connect();
      if (closed) return c.release();
      const own = c;
      own.on('notification', (msg) => {
        if (msg.channel === JOBS_CHANNEL) wake();
      });
      own.on('error', () => reconnect(own));
      await own.query(`listen ${JOBS_CHANNEL}`);
      if (closed) return own.release(true);
      client = own;
      delay = 200;
      wake(); // anything inserted while not listening is claimable now
    } catch {
      if (c && client !== c) c.release(true);
      if (!closed) {
        setTimeout(() => start(), (delay = Math.min(5000, delay * 2))).unref();
      }
    }
  };
  const start = () => {
    connecting = connect().finally(() => (connecting = undefined));
  };
  const reconnect = (c: pg.PoolClient) => {
    if (client !== c) return;
    client = undefined;
    c.release(true);
    if (!closed) setTimeout(() => start(), delay).unref();
  };
  start();
  return async () => {
    closed = true;
    await connecting;
    const c = client;
    client = undefined;
    if (c) {
      await c.query(`unlisten ${JOBS_CHANNEL}`).catch(() => {});
      c.release();
    }
  };
}

function sqliteSignal(file: string, wake: () => void): () => Promise<void> {
  const wal = `${basename(file)}-wal`;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), (_event, name) => {
      if (name === wal) wake();
    });
    watcher.on('error', () => watcher?.close());
    watcher.unref();
  } catch {
    watcher = undefined; // no file watch here: the poll alone paces claims
  }
  return async () => watcher?.close();
}

export function createWorkSignal(database: SluiceDatabase): WorkSignal {
  const waiters = createWaiters();
  const native = database.native;
  const stop =
    native.dialect === 'postgres'
      ? pgSignal(native.pool, waiters.wake)
      : database.sqliteFile
        ? sqliteSignal(database.sqliteFile, waiters.wake)
        : async () => {};
  return { wait: waiters.wait, close: stop };
}

/**
 * Tells idle embedded workers that jobs became claimable outside an insert (which NOTIFYs by
 * itself): a delayed job moved to queued. SQLite needs nothing (the commit wakes the WAL watch).
 */
export async function notifyWork(database: SluiceDatabase): Promise<void> {
  if (database.native.dialect !== 'postgres') return;
  await sql`select pg_notify(${JOBS_CHANNEL}, '')`.execute(database.db);
}
