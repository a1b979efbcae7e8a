// "New jobs may have arrived": how an embedded worker sleeps between empty claims without a busy
// poll, woken by the dialect's signal (`StorageDialect.watchWork`): on PostgreSQL a connection
// that LISTENs on the jobs channel (dialect/postgres/listen-for-work.ts), on SQLite a file watch
// on the write-ahead log (dialect/sqlite/watch-wal.ts), on D1 none. Either way the wait also ends
// after `ms`: the poll stays the fallback for what a signal cannot see (a retry's due time
// passing, a lost connection, a missed watch).

import type { SluiceDatabase } from '../database.js';

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

export function createWorkSignal(database: SluiceDatabase): WorkSignal {
  const waiters = createWaiters();
  return { wait: waiters.wait, close: database.dialect.watchWork(waiters.wake) };
}

/**
 * Tells idle embedded workers that jobs became claimable outside an insert (which wakes them by
 * itself): a delayed job moved to queued. Where a commit is the signal (SQLite) it does nothing.
 */
export async function notifyWork(database: SluiceDatabase): Promise<void> {
  await database.dialect.notifyWork();
}
