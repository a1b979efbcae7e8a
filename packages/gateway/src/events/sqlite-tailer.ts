// The SQLite tailer: one short poll per gateway (default every 50 ms) of events with a global id
// above the last one seen. SQLite serializes write transactions (BEGIN IMMEDIATE), so ids become
// visible in increasing order and `id > lastId` misses nothing. While nobody listens it only
// moves its mark to the newest id (a new subscriber backfills from the database anyway).

import { eventsSince, maxEventId, type Db } from '@sluice/storage';
import type { EventTailer, TailerSink } from './event-hub.js';

export interface SqliteTailerOptions {
  intervalMs?: number;
  /** Events read per query (default 1000); a longer backlog is read in several. */
  batch?: number;
  onError?: (error: unknown) => void;
}

export function createSqliteTailer(db: Db, opts: SqliteTailerOptions = {}): EventTailer {
  const intervalMs = opts.intervalMs ?? 50;
  const batch = opts.batch ?? 1000;
  let lastId = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let running: Promise<void> = Promise.resolve();

  async function poll(sink: TailerSink): Promise<void> {
    if (!sink.wanted()) {
      lastId = Math.max(lastId, await maxEventId(db));
      return;
    }
    for (;;) {
      const events = await eventsSince(db, lastId, batch);
      if (events.length === 0) return;
      lastId = (events[events.length - 1] as { id: number }).id;
      sink.deliver(events);
      if (events.length < batch || closed) return;
    }
  }

  function schedule(sink: TailerSink): void {
    if (closed) return;
    timer = setTimeout(() => {
      running = poll(sink)
        .catch((error: unknown) => opts.onError?.(error))
        .finally(() => schedule(sink));
    }, intervalMs);
    timer.unref();
  }

  return {
    async start(sink) {
      lastId = await maxEventId(db);
      sink.resync();
      schedule(sink);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
