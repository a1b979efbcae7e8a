// WAL checkpoints off the hot path. SQLite's automatic checkpoint runs inside the commit that
// crosses `wal_autocheckpoint` pages, on the committing thread: with better-sqlite3 that stalls
// the event loop (a colleague measured gateway commit p99 43 ms with it, 9 ms without). Here a
// worker thread with its own connection runs `wal_checkpoint(PASSIVE)` on a timer: PASSIVE never
// takes the write lock nor waits for readers, so commits go on meanwhile, and once a checkpoint
// has copied every frame the next writer starts the WAL over. The automatic checkpoint stays as
// a backstop at a larger threshold (the thread dead or starved), so the WAL cannot grow without
// bound; `journal_size_limit` truncates the file after a burst made it large.

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Pages (4 KiB) after which a commit checkpoints by itself: the backstop (~40 MiB). */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 10_000;
/** A WAL file larger than this is truncated back after it was reset (64 MiB). */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

// Plain CommonJS, run with `eval`: no TypeScript loader needed in the thread.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
const tick = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: the next tick tries again */ }
};
const timer = setInterval(tick, workerData.everyMs);
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface SqliteCheckpointer {
  stop(): Promise<void>;
}

export function startSqliteCheckpointer(file: string, everyMs: number): SqliteCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, { eval: true, workerData: { driver, file, everyMs } });
  worker.unref();
  // A thread that fails leaves the backstop checkpoint in charge; nothing else depends on it.
  worker.on('error', () => {});
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        // Referenced again while it stops: an unref'd thread alone would let the process exit
        // with this promise (and the caller's close) still pending.
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
        setTimeout(() => void worker.terminate(), 1000).unref();
      });
      return stopped;
    },
  };
}
