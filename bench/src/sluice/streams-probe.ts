// Row 3's instruments around the real Streams runtime, used only in latency runs (drains run the
// runtime untouched):
// - `observe` passes every call through to the runtime and notes, per job, the dispatch stamp the
//   producer put in the entry id (`stampedEntryId`) when `read` hands the delivery out, and the
//   moment the host calls `publishEvents` with the job's terminal event: that call comes right
//   after the terminal transaction committed (terminal-writer), so it is the commit time.
// - `tailEvents` is the subscriber: `XREAD BLOCK` on the events stream on its own connection, as a
//   gateway's tailer reads it, stamping each terminal event's arrival. It runs in the worker's
//   process (one clock, one map), so in latency runs its CPU is in the workers' figure.
import { Redis } from 'iovalkey';
import { type JobEvent } from '@sluice/contracts';
import { monoMs } from '../harness/clock.js';
import { stampOfEntryId } from './streams-config.js';
import { createStreamKeys, type StreamsConsumer } from '@sluice/runtime-valkey-streams';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'dead_lettered', 'needs_review']);

function isTerminal(event: JobEvent): boolean {
  return event.type === 'state' && TERMINAL.has(event.to);
}

export interface StreamsProbe {
  /** The dispatch stamp of a delivered job (monotonic ms), when its entry carried one. */
  dispatchedAt(jobId: string): number | undefined;
  /** When `read` handed the job's delivery to the host (monotonic ms): splits dispatch→start. */
  readAt(jobId: string): number | undefined;
  /** When the host called the `read` that handed the job out (splits dispatch→read again). */
  readCalledAt(jobId: string): number | undefined;
  /** When the job's terminal event was handed to `publishEvents` (just after its commit). */
  committedAt(jobId: string): number | undefined;
  observe(consumer: StreamsConsumer): StreamsConsumer;
}

export function createStreamsProbe(): StreamsProbe {
  const dispatched = new Map<string, number>();
  const committed = new Map<string, number>();
  const readStamps = new Map<string, number>();
  const calledStamps = new Map<string, number>();
  return {
    dispatchedAt: (jobId) => dispatched.get(jobId),
    readAt: (jobId) => readStamps.get(jobId),
    readCalledAt: (jobId) => calledStamps.get(jobId),
    committedAt: (jobId) => committed.get(jobId),
    observe(consumer) {
      const publish = consumer.publishEvents?.bind(consumer);
      return {
        ...consumer,
        async read(max, signal) {
          const called = monoMs();
          const deliveries = await consumer.read(max, signal);
          const now = monoMs();
          for (const d of deliveries) {
            if (d.pointer) readStamps.set(d.pointer.jobId, now);
            if (d.pointer) calledStamps.set(d.pointer.jobId, called);
            const at = stampOfEntryId(d.entryId);
            if (d.pointer && at !== undefined) dispatched.set(d.pointer.jobId, at);
          }
          return deliveries;
        },
        ...(publish
          ? {
              publishEvents(events) {
                const now = monoMs();
                for (const e of events) if (isTerminal(e.event)) committed.set(e.event.jobId, now);
                return publish(events);
              },
            }
          : {}),
      };
    },
  };
}

/**
 * Tails the events stream from its start (Redis is flushed before every run, so it starts empty);
 * calls `arrived` with each terminal event's job id. */
export function tailEvents(
  redisUrl: string,
  arrived: (jobId: string, at: number) => void,
): { close(): void } {
  const key = createStreamKeys().events;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 0 });
  redis.on('error', () => undefined);
  let stopped = false;
  void (async () => {
    let last = '0';
    while (!stopped) {
      const reply = (await redis
        .call('XREAD', 'COUNT', 1000, 'BLOCK', 1000, 'STREAMS', key, last)
        .catch(() => null)) as [string, [string, string[]][]][] | null;
      const at = monoMs();
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) {
          last = id;
          // `e` holds one event, or a job's consecutive events of one write as an array
          // (encodeStreamEvents). Parsed without the zod check a gateway's tailer runs: the
          // subscriber's CPU lands in the workers' figure and must stay small.
          const raw = fields[fields.indexOf('e') + 1];
          const parsed = raw ? (JSON.parse(raw) as JobEvent | JobEvent[]) : [];
          for (const event of Array.isArray(parsed) ? parsed : [parsed])
            if (isTerminal(event)) arrived(event.jobId, at);
        }
      }
    }
  })();
  return {
    close() {
      stopped = true;
      redis.disconnect();
    },
  };
}
