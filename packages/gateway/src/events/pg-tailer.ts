// The PostgreSQL tailer: a dedicated connection from the pool LISTENs on the events channel.
// Every insert of events NOTIFYs their global ids, delivered at commit in commit order. Ids are
// read in batches (one query at a time; ids that arrive meanwhile wait for the next), skipping
// those this process already published. A lost connection is re-established with backoff, and
// subscribers are told to resync, because notifications sent while it was down are gone.

import { EVENTS_CHANNEL, eventsByIds, type Db } from '@sluice/storage';
import type { EventTailer, TailerSink } from './event-hub.js';

/** The subset of a pg `PoolClient` the tailer uses. */
export interface ListenClient {
  query(text: string): Promise<unknown>;
  on(event: 'notification', fn: (msg: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', fn: (error: Error) => void): unknown;
  on(event: 'end', fn: () => void): unknown;
  removeAllListeners(event?: string): unknown;
  release(error?: Error | boolean): void;
}

/** The subset of a pg `Pool` the tailer uses. */
export interface ListenPool {
  connect(): Promise<ListenClient>;
}

export interface PgTailerOptions {
  /** First reconnect delay; doubles up to 5 s. Default 200 ms. */
  reconnectMs?: number;
  onError?: (error: unknown) => void;
}

export function createPgTailer(pool: ListenPool, db: Db, opts: PgTailerOptions = {}): EventTailer {
  const firstDelay = opts.reconnectMs ?? 200;
  let client: ListenClient | undefined;
  let closed = false;
  let delay = firstDelay;
  let timer: NodeJS.Timeout | undefined;
  let pending: number[] = [];
  let fetching: Promise<void> | undefined;

  function drain(sink: TailerSink): void {
    if (fetching || pending.length === 0) return;
    const ids = pending.filter((id) => !sink.known(id));
    pending = [];
    if (ids.length === 0) return;
    fetching = eventsByIds(db, ids)
      .then((events) => sink.deliver(events))
      .catch((error: unknown) => {
        opts.onError?.(error);
        // The events are in the database; watchers read them on resync.
        sink.resync();
      })
      .finally(() => {
        fetching = undefined;
        drain(sink);
      });
  }

  function onNotification(sink: TailerSink, msg: { channel: string; payload?: string }): void {
    if (msg.channel !== EVENTS_CHANNEL || !msg.payload || !sink.wanted()) return;
    for (const part of msg.payload.split(',')) {
      const id = Number(part);
      if (Number.isSafeInteger(id)) pending.push(id);
    }
    drain(sink);
  }

  function lost(sink: TailerSink, c: ListenClient, error: unknown): void {
    if (client !== c) return;
    client = undefined;
    c.removeAllListeners('notification');
    c.release(error instanceof Error ? error : new Error('listener connection lost'));
    if (!closed) opts.onError?.(error);
    reconnect(sink);
  }

  function reconnect(sink: TailerSink): void {
    if (closed) return;
    timer = setTimeout(() => {
      connect(sink).catch(() => {});
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, 5000);
  }

  async function connect(sink: TailerSink): Promise<void> {
    let c: ListenClient;
    try {
      c = await pool.connect();
    } catch (error) {
      opts.onError?.(error);
      reconnect(sink);
      throw error;
    }
    if (closed) {
      c.release();
      return;
    }
    client = c;
    c.on('notification', (msg) => onNotification(sink, msg));
    c.on('error', (error) => lost(sink, c, error));
    c.on('end', () => lost(sink, c, new Error('listener connection ended')));
    try {
      await c.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      lost(sink, c, error);
      throw error;
    }
    delay = firstDelay;
    sink.resync();
  }

  return {
    start: (sink) => connect(sink),
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners('notification');
        // Destroyed, not returned: a connection that LISTENed is not handed to other queries.
        c.release(true);
      }
      await fetching;
    },
  };
}
