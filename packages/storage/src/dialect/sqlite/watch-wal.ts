// The work signal on SQLite: a file watch on the write-ahead log, which every commit of any
// process appends to. Where the platform has no file watch, nothing wakes early: the waiters'
// poll alone paces the claims.

import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Watches until the returned stop is called. */
export function watchWal(file: string, wake: () => void): () => Promise<void> {
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
