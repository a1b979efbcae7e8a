// The SQLite tailer: reads events with a global id above the last one seen. SQLite serializes
// write transactions (BEGIN IMMEDIATE), so ids become visible in increasing order and `id > lastId`
// misses nothing. While nobody listens it only moves its mark to the newest id (a new subscriber
// backfills from the database anyway).
//
// When to read: every commit, by any process, appends to the database's write-ahead log, so a
// file watch on the WAL (inotify on Linux) wakes the tailer at once instead of at the next poll
// (row 8: the 50 ms poll alone put p50 at ~half a poll and p99 at a whole one). The watch can
// fire before the commit is visible (the frames are written before the WAL index says so): a
// woken read that finds nothing is repeated once `retryMs` later. The interval poll stays as the
// fallback for anything the watch misses (an unwatchable file system, a delayed commit).

import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { eventsSince, maxEventId, type Db } from '@sluice/storage';
import type { EventTailer, TailerSink } from './event-hub.js';

export interface SqliteTailerOptions {
  /** Fallback poll interval (default 50 ms). */
  intervalMs?: number;
  /** The database file: its WAL is watched to read new events right after each commit. */
  file?: string | undefined;
  /** Delay of the second read after a wake-up that found nothing (default 3 ms). */
  retryMs?: number;
  /** Events read per query (default 1000); a longer backlog is read in several. */
  batch?: number;
  onError?: (error: unknown) => void;
}

export function createSqliteTailer(db: Db, opts: SqliteTailerOptions = {}): EventTailer {
  const intervalMs = opts.intervalMs ?? 50;
  const retryMs = opts.retryMs ?? 3;
  const batch = opts.batch ?? 1000;
  let lastId = 0;
  let timer: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;

  /** Reads and delivers what is new; returns how many events it delivered. */
  async function poll(sink: TailerSink): Promise<number> {
    if (!sink.wanted()) {
      lastId = Math.max(lastId, await maxEventId(db));
      return 0;
    }
    let delivered = 0;
    for (;;) {
      const events = await eventsSince(db, lastId, batch);
      if (events.length === 0) return delivered;
      lastId = (events[events.length - 1] as { id: number }).id;
      delivered += events.length;
      sink.deliver(events);
      if (events.length < batch || closed) return delivered;
    }
  }

  /** One read at a time; a wake-up during a read runs another right after it. */
  function run(sink: TailerSink, woken: boolean): void {
    if (closed) return;
    if (running) {
      again ||= woken;
      return;
    }
    clearTimeout(timer);
    running = poll(sink)
      .then((delivered) => {
        if (woken && delivered === 0 && !retry && sink.wanted()) {
          retry = setTimeout(() => {
            retry = undefined;
            run(sink, false);
          }, retryMs);
          retry.unref();
        }
      })
      .catch((error: unknown) => opts.onError?.(error))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run(sink, true);
        } else schedule(sink);
      });
  }

  function schedule(sink: TailerSink): void {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => run(sink, false), intervalMs);
    timer.unref();
  }

  function watchWal(sink: TailerSink, file: string): void {
    const wal = `${basename(file)}-wal`;
    try {
      // The directory, not the file: the WAL may not exist yet, and is re-created after the
      // last connection to the database closes.
      watcher = watch(dirname(file), { persistent: false }, (_type, name) => {
        if ((name === null || name === wal) && sink.wanted()) run(sink, true);
      });
      watcher.on('error', (error) => {
        // Polling alone from here on.
        opts.onError?.(error);
        watcher?.close();
        watcher = undefined;
      });
    } catch (error) {
      opts.onError?.(error);
    }
  }

  return {
    async start(sink) {
      lastId = await maxEventId(db);
      sink.resync();
      if (opts.file) watchWal(sink, opts.file);
      schedule(sink);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(retry);
      watcher?.close();
      await running;
    },
  };
}
