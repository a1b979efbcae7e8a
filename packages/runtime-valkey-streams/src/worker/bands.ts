// Priority bands on the read of new entries. Every (kind, version) has one stream per band
// (`PRIORITY_BANDS`, highest first). One XREADGROUP over all of them would deliver from every
// non-empty stream at once, low band included, so new entries are read by one script call that
// tries the bands in order and returns the first band with anything: one round trip, as before.
//
// Aging: every `lowBandEvery`-th read tries the bands lowest first instead, so a steady flow of
// higher work can delay the head of the lowest non-empty band by at most `lowBandEvery` reads
// of each worker (the bound docs/scheduling.md states and the conformance case checks).

import { type RuntimeQueueStats } from '@sluice/contracts';
import { PRIORITY_BANDS } from '../keys.js';
import { isNoGroupError, parseXRead, type StreamEntry } from '../replies.js';
import { groupBySlot } from '../keys.js';
import type { StreamInfo, StreamsContext } from './context.js';
import type { StreamsClient, StreamsScript } from './types.js';

/**
 * KEYS: the band streams in read order · ARGV group, consumer, count, then the number of keys of
 * each band → the XREADGROUP reply of the first band that had new entries, or false.
 */
export const READ_FIRST_BAND: StreamsScript = {
  name: 'read-first-band',
  lua: `
local at = 1
for b = 4, #ARGV do
  local n = tonumber(ARGV[b])
  if n > 0 then
    local args = {'XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', ARGV[3], 'STREAMS'}
    for i = at, at + n - 1 do args[#args + 1] = KEYS[i] end
    for i = 1, n do args[#args + 1] = '>' end
    local reply = redis.call(unpack(args))
    if reply then return reply end
    at = at + n
  end
end
return false`,
};

/** The band order of the `read`-th read of new entries (1-based): lowest first on every Nth. */
export function bandOrder(read: number, lowBandEvery: number): readonly StreamInfo['band'][] {
  return lowBandEvery > 0 && read % lowBandEvery === 0
    ? [...PRIORITY_BANDS].reverse()
    : PRIORITY_BANDS;
}

/**
 * New entries of the first non-empty band in `order` (nothing: every band is empty now). On a
 * cluster the script runs once per hash slot, that is per (kind, version): the band order then
 * holds within each version, and one read may bring a lower band of one version along with a
 * higher band of another. A slot that fails (its master failing over) is skipped while others
 * answered: the next read tries it again, and the other versions keep flowing meanwhile.
 */
export async function readFirstBand(
  ctx: StreamsContext,
  commands: StreamsClient,
  order: readonly StreamInfo['band'][],
  max: number,
): Promise<{ stream: string; entries: StreamEntry[] }[]> {
  const { opts } = ctx;
  // COUNT applies per stream: the caller buffers a surplus, as with the blocking read.
  const perStream = Math.max(1, Math.ceil(max / Math.max(1, ctx.streams.length / order.length)));
  const call = (streams: readonly StreamInfo[]) => {
    const keys: string[] = [];
    const counts: number[] = [];
    for (const band of order) {
      const inBand = streams.filter((s) => s.band === band);
      keys.push(...inBand.map((s) => s.stream));
      counts.push(inBand.length);
    }
    return {
      script: READ_FIRST_BAND,
      keys,
      args: [opts.keys.group, opts.consumerName, perStream, ...counts],
    };
  };
  const slots = opts.connections.singleSlotCommands
    ? groupBySlot(ctx.streams, (s) => s.stream).map((ix) =>
        ix.map((i) => ctx.streams[i] as StreamInfo),
      )
    : [ctx.streams];
  const replies = await commands.runScripts(slots.map(call));
  const failed = replies.filter((r) => !r.ok);
  if (failed.length === replies.length || failed.some((r) => !r.ok && isNoGroupError(r.error))) {
    const first = failed[0];
    if (first && !first.ok) throw first.error;
  }
  return replies.flatMap((r) => (r.ok ? parseXRead(r.value) : []));
}

/**
 * One figure per (kind, version), as before bands: the band streams' lengths, pending and lag
 * added up, the oldest age and highest delivery count kept, consumers merged by name. Dead
 * letters are one stream per version, so counted once.
 */
export function mergeBandStats(queues: readonly RuntimeQueueStats[]): RuntimeQueueStats[] {
  const out = new Map<string, RuntimeQueueStats>();
  for (const q of queues) {
    const key = `${q.kind}\u0000${q.version}`;
    const m = out.get(key);
    if (!m) {
      out.set(key, q);
      continue;
    }
    const consumers = new Map(m.consumers.map((c) => [c.name, c]));
    for (const c of q.consumers) {
      const had = consumers.get(c.name);
      consumers.set(
        c.name,
        had
          ? {
              name: c.name,
              pending: had.pending + c.pending,
              idleMs: Math.min(had.idleMs, c.idleMs),
            }
          : c,
      );
    }
    out.set(key, {
      ...m,
      length: m.length + q.length,
      pending: m.pending + q.pending,
      lag: m.lag === null && q.lag === null ? null : (m.lag ?? 0) + (q.lag ?? 0),
      oldestPendingAgeMs:
        m.oldestPendingAgeMs === null
          ? q.oldestPendingAgeMs
          : Math.max(m.oldestPendingAgeMs, q.oldestPendingAgeMs ?? 0),
      maxDeliveries: Math.max(m.maxDeliveries, q.maxDeliveries),
      consumers: [...consumers.values()],
    });
  }
  return [...out.values()];
}
