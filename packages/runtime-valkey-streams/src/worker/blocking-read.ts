// The `>` read: XREADGROUP … BLOCK on the dedicated connection, under a watchdog. A read that
// has not answered by its block time plus a margin is on a dead or half-open connection (F6:
// a blocked read can hang for good after a reconnect): the connection is torn down and the read
// fails, so the host counts it and reads again on a fresh connection.

import { parseXRead, type StreamEntry } from '../replies.js';
import type { StreamInfo, StreamsContext } from './context.js';
import type { BlockingStreamsClient } from './types.js';

export class WatchdogError extends Error {
  override readonly name = 'WatchdogError';
}

/** What one blocking read covers: every stream on one server; one slot's on a cluster. */
export interface BlockTarget {
  readonly streams: readonly StreamInfo[];
  readonly blockMs: number;
}

export async function readNewEntries(
  ctx: StreamsContext,
  blocking: BlockingStreamsClient,
  max: number,
  signal: AbortSignal | undefined,
  target: BlockTarget = { streams: ctx.streams, blockMs: ctx.opts.blockMs },
): Promise<{ stream: string; entries: StreamEntry[] }[]> {
  const { opts } = ctx;
  const { streams, blockMs } = target;
  const read = blocking.xreadgroup({
    group: opts.keys.group,
    consumer: opts.consumerName,
    streams: streams.map((s) => [s.stream, '>'] as const),
    // The server applies COUNT to each stream: the caller keeps a surplus for the next read.
    count: Math.max(1, Math.ceil(max / streams.length)),
    blockMs,
  });
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<never>((_resolve, reject) => {
    const fire = () =>
      reject(new WatchdogError(`blocking read unanswered after ${blockMs} ms + margin`));
    // After a stall (GC, SIGSTOP) the timer and the reply are due together and timers run
    // first: give pending socket reads one turn of the event loop before declaring it hung.
    timer = setTimeout(() => setImmediate(fire), blockMs + opts.watchdogMarginMs);
  });
  // On stop, CLIENT UNBLOCK makes the read answer at once with what it has (usually nothing);
  // tearing the connection down instead could lose entries the server just handed over.
  const onAbort = () => void blocking.interrupt().catch(() => blocking.reset());
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return parseXRead(await Promise.race([read, watchdog]));
  } catch (error) {
    if (error instanceof WatchdogError) {
      ctx.counters.watchdogTrips++;
      read.catch(() => {});
      blocking.reset();
      throw error;
    }
    if (signal?.aborted) return [];
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
