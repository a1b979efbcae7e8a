// What the Streams transport looks like right now, for `/metrics`: per job stream its length,
// pending entries (count, oldest age, delivery counts), consumers and their idle time; per
// dead-letter stream its length; the events stream's length. Read when scraped (XINFO, XPENDING),
// with streams found by SCAN under the prefix, so a gateway needs no list of kinds. Shown as
// prom-client gauges on the gateway's registry.

import { type StreamKeys } from '../keys.js';
import {
  isNoGroupError,
  parseFlatRecords,
  parseXPendingRange,
  parseXPendingSummary,
  streamIdTime,
} from '../replies.js';
import type { RedisClient } from './redis-client.js';
import { Gauge, type Registry } from 'prom-client';

export interface ConsumerStats {
  name: string;
  pending: number;
  idleMs: number;
}

export interface JobStreamStats {
  stream: string;
  length: number;
  pending: number;
  oldestPendingAgeMs: number;
  /** Pending entries handed out more than once (claimed or re-read), among the first 1000. */
  redelivered: number;
  maxDeliveries: number;
  /** Entries not yet delivered to the group (null when the server cannot tell). */
  lag: number | null;
  consumers: ConsumerStats[];
}

export interface StreamsSnapshot {
  jobs: JobStreamStats[];
  deadLetters: { stream: string; length: number }[];
  eventsLength: number;
}

const MAX_STREAMS = 200;
const PENDING_SAMPLE = 1000;

type StatsClient = Pick<RedisClient, 'scan' | 'pipeline'>;

async function scanKeys(redis: StatsClient, pattern: string): Promise<string[]> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    for (const k of keys) found.add(k);
    cursor = next;
  } while (cursor !== '0' && found.size < MAX_STREAMS);
  return [...found].sort().slice(0, MAX_STREAMS);
}

function reply<T>(
  entry: [Error | null, unknown] | undefined,
  parse: (v: unknown) => T,
  empty: T,
): T {
  if (!entry) return empty;
  const [error, value] = entry;
  if (error) {
    // A stream without the group yet (or lost with a restart) reads as empty.
    if (isNoGroupError(error) || /no such key/i.test(error.message)) return empty;
    throw error;
  }
  return parse(value);
}

export async function readStreamsSnapshot(
  redis: StatsClient,
  keys: StreamKeys,
  now = Date.now(),
): Promise<StreamsSnapshot> {
  const jobStreams = await scanKeys(redis, `${keys.prefix}:jobs:*`);
  const dlqStreams = await scanKeys(redis, `${keys.prefix}:dlq:*`);
  const pipe = redis.pipeline();
  for (const s of jobStreams) {
    pipe.xlen(s);
    pipe.xpending(s, keys.group);
    pipe.xpending(s, keys.group, '-', '+', PENDING_SAMPLE);
    pipe.xinfo('GROUPS', s);
    pipe.xinfo('CONSUMERS', s, keys.group);
  }
  for (const s of dlqStreams) pipe.xlen(s);
  pipe.xlen(keys.events);
  const results = (await pipe.exec()) ?? [];
  let i = 0;
  const next = () => results[i++] as [Error | null, unknown] | undefined;
  const jobs = jobStreams.map((stream): JobStreamStats => {
    const length = reply(next(), Number, 0);
    const summary = reply(next(), parseXPendingSummary, undefined);
    const sample = reply(next(), parseXPendingRange, []);
    const groups = reply(next(), parseFlatRecords, []);
    const consumers = reply(next(), parseFlatRecords, []);
    const group = groups.find((g) => g.name === keys.group);
    const oldest = summary?.minId ? now - streamIdTime(summary.minId) : 0;
    return {
      stream,
      length,
      pending: summary?.count ?? 0,
      oldestPendingAgeMs: Number.isFinite(oldest) ? Math.max(0, oldest) : 0,
      redelivered: sample.filter((p) => p.deliveries > 1).length,
      maxDeliveries: sample.reduce((m, p) => Math.max(m, p.deliveries), 0),
      lag: group?.lag === undefined || group.lag === null ? null : Number(group.lag),
      consumers: consumers.map((c) => ({
        name: String(c.name),
        pending: Number(c.pending ?? 0),
        idleMs: Number(c.idle ?? 0),
      })),
    };
  });
  const deadLetters = dlqStreams.map((stream) => ({ stream, length: reply(next(), Number, 0) }));
  const eventsLength = reply(next(), Number, 0);
  return { jobs, deadLetters, eventsLength };
}

export interface StreamsReading {
  snapshot: StreamsSnapshot;
  outbox: number;
}

/**
 * The snapshot's gauges (and `sluice_runtime_metrics_up`) on the gateway's registry. `read` is
 * shared by every gauge of one scrape and resolves `undefined` when Redis did not answer: the
 * gauges then show nothing, and the rest of the page is still served.
 */
export function registerStreamsMetrics(
  registry: Registry,
  read: () => Promise<StreamsReading | undefined>,
): void {
  const registers = [registry];
  new Gauge({
    name: 'sluice_runtime_metrics_up',
    help: 'Runtime figures could be read.',
    registers,
    async collect() {
      this.set((await read()) ? 1 : 0);
    },
  });
  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    rows: (s: StreamsSnapshot) => [Record<L, string>, number][],
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        const reading = await read();
        this.reset();
        if (reading) for (const [labels, v] of rows(reading.snapshot)) this.set(labels, v);
      },
    });
  const perStream = (name: string, help: string, f: (j: JobStreamStats) => number | null) =>
    gauge(name, help, ['stream'], (s) =>
      s.jobs.flatMap((j): [{ stream: string }, number][] => {
        const v = f(j);
        return v === null ? [] : [[{ stream: j.stream }, v]];
      }),
    );
  perStream('sluice_stream_length', 'Entries in each job stream.', (j) => j.length);
  perStream('sluice_stream_pending', 'Pending entries (delivered, not acked).', (j) => j.pending);
  perStream(
    'sluice_stream_oldest_pending_age_seconds',
    'Age of the oldest pending entry.',
    (j) => j.oldestPendingAgeMs / 1000,
  );
  perStream(
    'sluice_stream_redelivered_pending',
    'Pending entries delivered more than once (claims, re-reads; first 1000).',
    (j) => j.redelivered,
  );
  perStream(
    'sluice_stream_pending_max_deliveries',
    'Highest delivery count among pending entries (first 1000).',
    (j) => j.maxDeliveries,
  );
  perStream('sluice_stream_lag', 'Entries not yet delivered to the group.', (j) => j.lag);
  perStream('sluice_stream_consumers', 'Consumers in the group.', (j) => j.consumers.length);
  const perConsumer = (name: string, help: string, f: (c: ConsumerStats) => number) =>
    gauge(name, help, ['stream', 'consumer'], (s) =>
      s.jobs.flatMap((j) =>
        j.consumers.map((c): [{ stream: string; consumer: string }, number] => [
          { stream: j.stream, consumer: c.name },
          f(c),
        ]),
      ),
    );
  perConsumer('sluice_stream_consumer_pending', 'Pending entries per consumer.', (c) => c.pending);
  perConsumer(
    'sluice_stream_consumer_idle_seconds',
    'Time since each consumer last interacted.',
    (c) => c.idleMs / 1000,
  );
  gauge(
    'sluice_dead_letter_stream_length',
    'Entries in each dead-letter stream.',
    ['stream'],
    (s) => s.deadLetters.map((d) => [{ stream: d.stream }, d.length]),
  );
  new Gauge({
    name: 'sluice_events_stream_length',
    help: 'Entries in the events stream.',
    registers,
    async collect() {
      const reading = await read();
      this.reset();
      if (reading) this.set(reading.snapshot.eventsLength);
    },
  });
}
