// The events-stream tailer, for runtimes that carry events (Valkey Streams): one per gateway.
// Workers XADD the status events they committed to one stream; every gateway replica reads it
// with `XREAD BLOCK` on a dedicated connection and feeds its hub, and relays the events it
// committed itself the same way (`relay`), so a client watching through gateway A sees what
// gateway B or any worker wrote. The entry carries no global event id: the hub deduplicates by
// (job, sequence number), and watchers fill any gap from the database.
//
// Reads start after the newest entry at start-up and then follow concrete ids (never `$` twice:
// entries added between two reads would be skipped). A read that hangs past its block time plus
// a margin is torn down (F6 in the research). After any failure (a broken connection, a Redis
// restart that lost the stream and whatever nobody had read yet) subscribers are told to resync
// from the database as soon as the server answers again, so no watcher misses a terminal event.

import { type PublishedEvent } from '@sluice/contracts';
import { decodeStreamEvents, encodeStreamEvents, groupStreamEvents } from '../events.js';
import { parseXRead } from '../replies.js';
import type { StoredEvent } from '@sluice/storage';
import type { RedisClient } from './redis-client.js';
import type { EventTailer, TailerSink } from '@sluice/gateway';

export interface StreamTailerOptions {
  /** A dedicated connection for the blocking read (no offline queue, no resend); closed by `close`. */
  reader: Pick<RedisClient, 'xread' | 'xrevrange' | 'ping' | 'disconnect' | 'status' | 'once'>;
  /** A command connection, for relaying this process's own events. */
  writer: Pick<RedisClient, 'pipeline'>;
  /** The events stream (`createStreamKeys().events`). */
  key: string;
  /** Default 1000 ms. */
  blockMs?: number;
  /** Extra wait past `blockMs` before a read counts as hung (default 2000 ms). */
  watchdogMarginMs?: number;
  /** Entries per read (default 500). */
  batch?: number;
  /** Approximate cap on the events stream when relaying (default 100 000). */
  maxLen?: number;
  onError?: (error: unknown) => void;
}

export interface StreamTailer extends EventTailer {
  relay(events: readonly StoredEvent[]): void;
  /** Reads that failed or hung, and resyncs sent (tests and metrics). */
  readonly stats: { failures: number; watchdogs: number; resyncs: number; relayed: number };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export function createStreamTailer(opts: StreamTailerOptions): StreamTailer {
  const { reader, writer, key } = opts;
  const blockMs = opts.blockMs ?? 1000;
  const marginMs = opts.watchdogMarginMs ?? 2000;
  const batch = opts.batch ?? 500;
  const trim = ['MAXLEN', '~', String(opts.maxLen ?? 100_000)];
  const stats = { failures: 0, watchdogs: 0, resyncs: 0, relayed: 0 };
  let closed = false;
  let loop: Promise<void> | undefined;
  const outgoing: PublishedEvent[] = [];
  let flushing: Promise<void> | undefined;

  function watched<T>(read: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        stats.watchdogs++;
        // Tears the socket down (and reconnects): the hung command is rejected with it.
        reader.disconnect(true);
        reject(new Error(`the events stream did not answer within ${blockMs + marginMs} ms`));
      }, blockMs + marginMs);
      read.then(
        (v) => (clearTimeout(timer), resolve(v)),
        (e: unknown) => (
          clearTimeout(timer),
          reject(e instanceof Error ? e : new Error(String(e)))
        ),
      );
    });
  }

  async function newestId(): Promise<string> {
    const last = (await reader.xrevrange(key, '+', '-', 'COUNT', 1)) as unknown[];
    const first = last[0];
    return Array.isArray(first) && typeof first[0] === 'string' ? first[0] : '0-0';
  }

  async function run(sink: TailerSink, started: () => void): Promise<void> {
    let lastId: string | undefined;
    let resyncOwed = true;
    let delay = 50;
    let unreadySince: number | undefined;
    let healthy = true;
    // A fresh connection is still connecting (it queues nothing): give it a moment first.
    if (reader.status !== 'ready') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, blockMs + marginMs);
        reader.once('ready', () => (clearTimeout(timer), resolve()));
      });
    }
    while (!closed) {
      try {
        if (resyncOwed) {
          await watched(reader.ping());
          lastId ??= await watched(newestId());
          resyncOwed = false;
          stats.resyncs++;
          sink.resync();
          started();
        }
        const reply = await watched(
          reader.xread('COUNT', batch, 'BLOCK', blockMs, 'STREAMS', key, lastId ?? '$'),
        );
        delay = 50;
        healthy = true;
        const events: StoredEvent[] = [];
        // Nobody listening: only move the mark (decoding validates every event: not free).
        const wanted = sink.wanted();
        for (const stream of parseXRead(reply)) {
          for (const entry of stream.entries) {
            lastId = entry.id;
            if (!entry.fields || !wanted) continue;
            try {
              // No global id on the stream: 0 ("unknown"); the hub dedupes by job and seq.
              for (const e of decodeStreamEvents(entry.fields)) events.push({ id: 0, ...e });
            } catch (error) {
              opts.onError?.(error);
            }
          }
        }
        if (events.length > 0) sink.deliver(events);
      } catch (error) {
        if (closed) return;
        stats.failures++;
        // Reported once per outage, not once per retry.
        if (healthy) opts.onError?.(error);
        healthy = false;
        resyncOwed = true;
        // A reconnect can hang too (its handshake lost on a half-open link): start it over.
        if (reader.status === 'ready') unreadySince = undefined;
        else if ((unreadySince ??= Date.now()) < Date.now() - blockMs - marginMs) {
          stats.watchdogs++;
          unreadySince = undefined;
          reader.disconnect(true);
        }
        started();
        await sleep(delay);
        delay = Math.min(delay * 2, 1000);
      }
    }
  }

  async function flush(): Promise<void> {
    while (outgoing.length > 0) {
      const events = outgoing.splice(0, 500);
      const pipe = writer.pipeline();
      for (const group of groupStreamEvents(events))
        pipe.xadd(key, ...trim, '*', ...encodeStreamEvents(group));
      try {
        const results = await pipe.exec();
        const failed = results?.find(([error]) => error)?.[0];
        if (failed) throw failed;
        stats.relayed += events.length;
      } catch (error) {
        // Best effort: the other replicas' watchers backfill from the database after they
        // resync, and a job's next event reveals the gap to its watchers.
        opts.onError?.(error);
      }
    }
  }

  function scheduleFlush(): void {
    // One pipeline for everything relayed in the same turn of the event loop.
    flushing ??= new Promise<void>((r) => setImmediate(r)).then(flush).finally(() => {
      flushing = undefined;
      if (outgoing.length > 0 && !closed) scheduleFlush();
    });
  }

  return {
    stats,
    start(sink) {
      return new Promise<void>((resolve) => {
        loop = run(sink, resolve);
      });
    },
    relay(events) {
      if (closed || events.length === 0) return;
      for (const e of events) outgoing.push({ tenantId: e.tenantId, kind: e.kind, event: e.event });
      scheduleFlush();
    },
    async close() {
      if (closed) return;
      closed = true;
      // What this process committed last still goes out (the writer's command timeout bounds it).
      await flushing;
      await flush();
      // The connection is this tailer's alone: closing it ends the blocked read at once.
      reader.disconnect();
      await loop;
    },
  };
}
