// Options of the Streams consumer, their documented defaults, and the state its parts share
// (reader, finisher, groups, maintenance). Pure data: no I/O here.

import { type RuntimeCapabilities, type VersionKey } from '@sluice/contracts';
import { PRIORITY_BANDS, type PriorityBand, type StreamKeys } from '../keys.js';
import { valkeyStreamsCapabilities } from '../capabilities.js';
import { RENEW_OWNED } from './scripts.js';
import type { StreamsConnections, StreamsDelivery, StreamsScript } from './types.js';

/**
 * Stated once (capabilities.ts) for both halves. The consumer reads no dispatch-side flag
 * (`fairAcrossTenants` is the gateway's bounded dispatch), so it states the default dispatch.
 */
export const STREAMS_CAPABILITIES: RuntimeCapabilities = valkeyStreamsCapabilities(true);

export interface StreamsConsumerOptions {
  connections: StreamsConnections;
  keys: StreamKeys;
  /** The (kind, version) pairs whose streams this consumer reads. */
  versions: readonly VersionKey[];
  /** Consumer name in the group: keep it stable across restarts so own pending entries come back first. */
  consumerName: string;
  /** Idle time after which another consumer's entry may be claimed (= the lease; default 30 s). */
  claimIdleMs: number;
  /** Most entries claimed per sweep (default 50). */
  claimCount?: number | undefined;
  /** Pause between claim sweeps (default claimIdleMs / 4, within 100 ms … 5 s). */
  claimEveryMs?: number | undefined;
  /**
   * Aging of priority bands: every Nth read of new entries tries the lowest band first (default
   * 8; 0 turns aging off). Bounds how long higher bands can keep the lowest non-empty one waiting.
   */
  lowBandEvery?: number | undefined;
  /** XREADGROUP BLOCK time (default 2 000 ms). */
  blockMs?: number | undefined;
  /** A blocking read that has not answered by blockMs + this is torn down (default 1 000 ms). */
  watchdogMarginMs?: number | undefined;
  /** Served-versions heartbeat period (default 5 000 ms); each one is valid for servedTtlMs. */
  heartbeatEveryMs?: number | undefined;
  servedTtlMs?: number | undefined;
  /** Trim and consumer clean-up period (default 30 000 ms; 0 turns it off). */
  maintainEveryMs?: number | undefined;
  /** Consumers holding nothing and idle this long are removed from the group (default 1 h). */
  reapConsumersIdleMs?: number | undefined;
  eventsMaxLen?: number | undefined;
  deadLettersMaxLen?: number | undefined;
  /**
   * Where a group starts when it is (re)created (default `0`). An entry already in a stream
   * that has no group was dispatched and never delivered; `$` would strand it. Duplicates that
   * `0` may deliver are settled by the database (a finished job is only acknowledged).
   */
  groupStartId?: string | undefined;
  /** Close the connections on `close()` (default true). */
  ownsConnections?: boolean | undefined;
  /** Background failures nobody awaits (heartbeats, trimming, lost groups), rate-limited. */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * The renewal script (default: owner-checked `RENEW_OWNED`). A test seam: fault-injection
   * tests pass a variant that skips the owner check, to prove the tests catch it.
   */
  renewScript?: StreamsScript | undefined;
}

export type ResolvedOptions = Required<Omit<StreamsConsumerOptions, 'onError'>> & {
  onError: (error: unknown) => void;
};

export function resolveOptions(o: StreamsConsumerOptions): ResolvedOptions {
  const heartbeatEveryMs = o.heartbeatEveryMs ?? 5000;
  return {
    ...o,
    claimCount: o.claimCount ?? 50,
    claimEveryMs: o.claimEveryMs ?? Math.min(5000, Math.max(100, Math.floor(o.claimIdleMs / 4))),
    lowBandEvery: o.lowBandEvery ?? 8,
    blockMs: o.blockMs ?? 2000,
    watchdogMarginMs: o.watchdogMarginMs ?? 1000,
    heartbeatEveryMs,
    servedTtlMs: o.servedTtlMs ?? heartbeatEveryMs * 3,
    maintainEveryMs: o.maintainEveryMs ?? 30_000,
    reapConsumersIdleMs: o.reapConsumersIdleMs ?? 3_600_000,
    eventsMaxLen: o.eventsMaxLen ?? 100_000,
    deadLettersMaxLen: o.deadLettersMaxLen ?? 100_000,
    groupStartId: o.groupStartId ?? '0',
    ownsConnections: o.ownsConnections ?? true,
    renewScript: o.renewScript ?? RENEW_OWNED,
    onError: o.onError ?? (() => {}),
  };
}

export interface StreamInfo {
  readonly stream: string;
  readonly kind: string;
  readonly version: string;
  readonly band: PriorityBand;
  readonly deadLetters: string;
}

export interface StreamsCounters {
  /** Entries taken over from idle consumers (XAUTOCLAIM). */
  claims: number;
  /** Entries XAUTOCLAIM reported deleted (trimmed or XDEL'd while pending). */
  claimedDeleted: number;
  deadLetters: number;
  /** Entries with an unreadable pointer, moved to the dead-letter stream by the consumer itself. */
  malformed: number;
  groupRecreations: number;
  nogroupErrors: number;
  watchdogTrips: number;
  trimmed: number;
  reapedConsumers: number;
  /** Renewals that found the entry owned by another consumer. */
  renewalsLost: number;
  /** Entries taken from consumers whose worker's liveness lapsed (XCLAIM, take-over.ts). */
  takenOver: number;
}

export interface StreamsContext {
  readonly opts: ResolvedOptions;
  readonly streams: readonly StreamInfo[];
  readonly byStream: ReadonlyMap<string, StreamInfo>;
  /** Deliveries handed out and not finished: delivery id → last time it was handed out or renewed. */
  readonly outstanding: Map<string, number>;
  readonly counters: StreamsCounters;
}

export function createContext(o: StreamsConsumerOptions): StreamsContext {
  const opts = resolveOptions(o);
  const seen = new Set<string>();
  const streams: StreamInfo[] = [];
  for (const v of o.versions) {
    // One stream per priority band; dead letters stay one stream per version.
    for (const band of PRIORITY_BANDS) {
      const stream = o.keys.jobs(v.kind, v.version, band);
      if (seen.has(stream)) continue;
      seen.add(stream);
      streams.push({
        kind: v.kind,
        version: v.version,
        band,
        stream,
        deadLetters: o.keys.deadLetters(v.kind, v.version),
      });
    }
  }
  return {
    opts,
    streams,
    byStream: new Map(streams.map((s) => [s.stream, s])),
    outstanding: new Map(),
    counters: {
      claims: 0,
      claimedDeleted: 0,
      deadLetters: 0,
      malformed: 0,
      groupRecreations: 0,
      nogroupErrors: 0,
      watchdogTrips: 0,
      trimmed: 0,
      reapedConsumers: 0,
      renewalsLost: 0,
      takenOver: 0,
    },
  };
}

/** Groups deliveries by their stream, keeping order within each. */
export function byStream<T extends StreamsDelivery>(deliveries: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const d of deliveries) out.set(d.stream, [...(out.get(d.stream) ?? []), d]);
  return out;
}

export function deliveryId(stream: string, entryId: string): string {
  return `${entryId}@${stream}`;
}
