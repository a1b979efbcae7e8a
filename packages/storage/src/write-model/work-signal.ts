// "New jobs may have arrived": how an embedded worker sleeps between empty claims without a busy
// poll. PostgreSQL: a dedicated connection LISTENs on the jobs channel (an insert trigger
// NOTIFYs it, migration 0005). SQLite: a file watch on the write-ahead log, which every commit of
// any process appends to. Either way the wait also ends after `ms`: the poll stays the fallback
// for what a signal cannot see (a retry's due time passing, a lost connection, a missed watch).

import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type pg from 'pg';
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
  const connect = async (): Promise<void> => {
    if (closed) return;
    try {
      const c = await pool.connect();
      c.on('notification', (msg) => {
        if (msg.channel === JOBS_CHANNEL) wake();
      });
      c.on('error', () => reconnect(c));
      await c.query(`listen ${JOBS_CHANNEL}`);
      client = c;
      delay = 200;
      wake(); // anything inserted while not listening is claimable now
    } catch {
      setTimeout(() => void connect(), (delay = Math.min(5000, delay * 2))).unref();
    }
  };
  const reconnect = (c: pg.PoolClient) => {
    if (client !== c) return;
    client = undefined;
    c.release(true);
    if (!closed) setTimeout(() => void connect(), delay).unref();
  };
  void connect();
  return async () => {
    closed = true;
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
