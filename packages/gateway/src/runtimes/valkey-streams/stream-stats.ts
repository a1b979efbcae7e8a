// What the Streams transport looks like right now, for `/metrics`: per job stream its length,
// pending entries (count, oldest age, delivery counts), consumers and their idle time; per
// dead-letter stream its length; the events stream's length. Read when scraped (XINFO, XPENDING),
// with streams found by SCAN under the prefix, so a gateway needs no list of kinds.

import {
  isNoGroupError,
  parseFlatRecords,
  parseXPendingRange,
  parseXPendingSummary,
  streamIdTime,
  type StreamKeys,
} from '@sluice/contracts';
import type { Redis } from 'iovalkey';

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

type StatsClient = Pick<Redis, 'scan' | 'pipeline' | 'xlen'>;

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

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

/** Prometheus text lines for a snapshot. */
export function renderStreamsSnapshot(s: StreamsSnapshot): string[] {
  const out: string[] = [];
  const metric = (
    name: string,
    help: string,
    type: 'gauge' | 'counter',
    rows: [string, number][],
  ) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of rows) out.push(`${name}${labels} ${v}`);
  };
  const by = (st: JobStreamStats) => `{stream="${esc(st.stream)}"}`;
  metric(
    'sluice_stream_length',
    'Entries in each job stream.',
    'gauge',
    s.jobs.map((j) => [by(j), j.length]),
  );
  metric(
    'sluice_stream_pending',
    'Pending entries (delivered, not acked).',
    'gauge',
    s.jobs.map((j) => [by(j), j.pending]),
  );
  metric(
    'sluice_stream_oldest_pending_age_seconds',
    'Age of the oldest pending entry.',
    'gauge',
    s.jobs.map((j) => [by(j), j.oldestPendingAgeMs / 1000]),
  );
  metric(
    'sluice_stream_redelivered_pending',
    'Pending entries delivered more than once (claims, re-reads; first 1000).',
    'gauge',
    s.jobs.map((j) => [by(j), j.redelivered]),
  );
  metric(
    'sluice_stream_pending_max_deliveries',
    'Highest delivery count among pending entries (first 1000).',
    'gauge',
    s.jobs.map((j) => [by(j), j.maxDeliveries]),
  );
  metric(
    'sluice_stream_lag',
    'Entries not yet delivered to the group.',
    'gauge',
    s.jobs.flatMap((j): [string, number][] => (j.lag === null ? [] : [[by(j), j.lag]])),
  );
  metric(
    'sluice_stream_consumers',
    'Consumers in the group.',
    'gauge',
    s.jobs.map((j) => [by(j), j.consumers.length]),
  );
  const perConsumer = (f: (c: ConsumerStats) => number) =>
    s.jobs.flatMap((j) =>
      j.consumers.map((c): [string, number] => [
        `{stream="${esc(j.stream)}",consumer="${esc(c.name)}"}`,
        f(c),
      ]),
    );
  metric(
    'sluice_stream_consumer_pending',
    'Pending entries per consumer.',
    'gauge',
    perConsumer((c) => c.pending),
  );
  metric(
    'sluice_stream_consumer_idle_seconds',
    'Time since each consumer last interacted.',
    'gauge',
    perConsumer((c) => c.idleMs / 1000),
  );
  metric(
    'sluice_dead_letter_stream_length',
    'Entries in each dead-letter stream.',
    'gauge',
    s.deadLetters.map((d) => [`{stream="${esc(d.stream)}"}`, d.length]),
  );
  metric('sluice_events_stream_length', 'Entries in the events stream.', 'gauge', [
    ['', s.eventsLength],
  ]);
  return out;
}
