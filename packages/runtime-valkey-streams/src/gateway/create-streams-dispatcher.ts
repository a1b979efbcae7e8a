// The Valkey Streams runtime's dispatch half: pointers XADDed to the stream of their kind,
// version and priority band in one pipeline, and the served-versions registry read from the sorted set workers
// heartbeat. Streams live outside the job database, so dispatch runs after commit and the outbox
// row written in the accept transaction covers a crash in between (the reconciler).
//
// Before its first XADD to a stream (again after every reconnect: the server may have restarted
// without its data) the pipeline creates the consumer group at id 0 (MKSTREAM; BUSYGROUP is fine).
// Otherwise a worker that recreates a lost group at `$` after our XADD would never see the entry.

import { encodePointer, type RuntimeDispatcher } from '@sluice/contracts';
import { createStreamKeys, priorityBand, type StreamKeys } from '../keys.js';
import { isBusyGroupError } from '../replies.js';
import type { MessagePointer } from '@sluice/contracts';
import { valkeyStreamsCapabilities } from '../capabilities.js';
import type { Db } from '@sluice/storage';
import { ADD_WITHIN_DEPTH } from './bounded-add.js';
import type { RedisClient } from './redis-client.js';

/** The commands the dispatcher uses: the narrowest client shape, so tests and other clients fit. */
export type StreamsDispatchClient = Pick<RedisClient, 'pipeline' | 'zrangebyscore' | 'on' | 'eval'>;

export interface StreamsDispatcherOptions {
  redis: StreamsDispatchClient;
  keys?: StreamKeys;
  /**
   * Approximate cap on each job stream (`MAXLEN ~`). Off by default: before Redis 8.2 MAXLEN can
   * drop entries that are still pending; workers trim with MINID below the oldest pending entry.
   */
  maxLen?: number;
  /**
   * Bounded-depth dispatch (fairness across tenants): at most this many undelivered entries per
   * job stream; the rest is held in the database (`hold`) for the fair feeder. Off when unset.
   */
  maxUndelivered?: number;
  /** Marks jobs held (their outbox row). Required with `maxUndelivered`. */
  hold?: (jobIds: readonly string[]) => Promise<void>;
  /** Reports registry reads that failed (then nothing is dead-lettered at dispatch). */
  onError?: (error: unknown) => void;
  /**
   * Pointers carry the accepted row (pointer format 2) so a first delivery starts without reading
   * it (default true). `false` sends the identity-only pointer every worker release reads: for a
   * rolling upgrade while workers that predate format 2 (they refuse its extra fields) still run.
   */
  pointerSnapshots?: boolean;
}

export interface StreamsDispatcher extends RuntimeDispatcher<Db> {
  readonly keys: StreamKeys;
  /** XADD pipelines sent, entries added, jobs held for want of room (tests and metrics). */
  readonly stats: { pipelines: number; entries: number; failures: number; held: number };
  /** The depth bound of bounded-depth dispatch (undefined: unbounded). */
  readonly maxUndelivered: number | undefined;
  /** Job streams this process dispatched to (the reconciler checks they still exist). */
  knownStreams(): string[];
  /**
   * Bounded-depth dispatch for the fair feeder: XADDs what fits and returns the ids of the jobs
   * that did not fit, without marking them (the feeder's jobs are held already).
   */
  offer(pointers: readonly MessagePointer[]): Promise<string[]>;
  /** Forget which groups exist (after a detected data loss): the next XADDs recreate them. */
  forgetGroups(): void;
}

export function createStreamsDispatcher(opts: StreamsDispatcherOptions): StreamsDispatcher {
  const { redis } = opts;
  const keys = opts.keys ?? createStreamKeys();
  const stats = { pipelines: 0, entries: 0, failures: 0, held: 0 };
  const bound = opts.maxUndelivered;
  if (bound !== undefined && (!Number.isInteger(bound) || bound < 1 || !opts.hold)) {
    throw new Error('maxUndelivered must be a positive integer, with a hold function');
  }
  const snapshots = opts.pointerSnapshots !== false;
  const known = new Set<string>();
  const grouped = new Set<string>();
  const trim = opts.maxLen === undefined ? [] : ['MAXLEN', '~', String(opts.maxLen)];
  // A reconnect may be to a server that lost everything: make sure of the groups again.
  redis.on('ready', () => grouped.clear());

  /** XADDs what fits; returns the ids of jobs that did not (none when unbounded). */
  async function send(pointers: readonly MessagePointer[]): Promise<string[]> {
    if (pointers.length === 0) return [];
    // Validates every pointer and its 1 KiB bound before anything is sent.
    const adds = pointers.map((p) => ({
      // Each priority band has its own stream; workers read the higher bands first.
      stream: keys.jobs(p.kind, p.version, priorityBand(p.priority)),
      fields: encodePointer(snapshots || !p.snapshot ? p : withoutSnapshot(p)),
    }));
    const creating = [...new Set(adds.map((a) => a.stream))].filter((s) => !grouped.has(s));
    const pipe = redis.pipeline();
    // Groups first: a pipeline runs in order, so they exist before the entries arrive.
    for (const stream of creating) pipe.xgroup('CREATE', stream, keys.group, '0', 'MKSTREAM');
    // Bounded: one script per stream adds what fits (in order); the rest is held.
    const byStream = new Map<string, { jobIds: string[]; fields: string[] }>();
    if (bound === undefined) {
      for (const a of adds) pipe.xadd(a.stream, ...trim, '*', ...a.fields);
    } else {
      for (const [i, a] of adds.entries()) {
        const s = byStream.get(a.stream) ?? { jobIds: [], fields: [] };
        s.jobIds.push((pointers[i] as MessagePointer).jobId);
        s.fields.push(...a.fields);
        byStream.set(a.stream, s);
      }
      for (const [stream, s] of byStream) {
        const width = s.fields.length / s.jobIds.length;
        const args = [keys.group, bound, width, opts.maxLen ?? '', ...s.fields];
        pipe.eval(ADD_WITHIN_DEPTH, 1, stream, ...args);
      }
    }
    stats.pipelines++;
    const results = await pipe.exec().catch((error: unknown) => {
      stats.failures++;
      throw error;
    });
    if (!results) throw new Error('stream pipeline was not executed');
    let failure: unknown;
    let i = 0;
    for (const stream of creating) {
      const [error] = results[i++] ?? [new Error('no reply')];
      if (!error || isBusyGroupError(error)) grouped.add(stream);
      else failure ??= error;
    }
    const held: string[] = [];
    if (bound === undefined) {
      for (const a of adds) {
        const [error] = results[i++] ?? [new Error('no reply')];
        if (error) failure ??= error;
        else {
          known.add(a.stream);
          stats.entries++;
        }
      }
    } else {
      for (const [stream, s] of byStream) {
        const [error, added] = results[i++] ?? [new Error('no reply')];
        if (error) {
          failure ??= error;
          continue;
        }
        known.add(stream);
        stats.entries += Number(added);
        held.push(...s.jobIds.slice(Number(added)));
      }
    }
    // Some entries may be in: the caller keeps every outbox row, and duplicates are harmless.
    if (failure) {
      stats.failures++;
      throw failure;
    }
    return held;
  }

  return {
    name: 'valkey-streams',
    // Fair across tenants only when the depth is bounded (the fair feeder picks the order).
    capabilities: valkeyStreamsCapabilities(bound !== undefined, snapshots),
    keys,
    maxUndelivered: bound,
    stats,
    knownStreams: () => [...known],
    forgetGroups: () => grouped.clear(),

    async dispatch(pointers) {
      const held = await send(pointers);
      // Held before success is reported: the caller's outbox clean-up then leaves these rows.
      if (held.length > 0) {
        await (opts.hold as NonNullable<typeof opts.hold>)(held);
        stats.held += held.length;
      }
    },

    offer: send,

    async servedVersions(kind) {
      try {
        const now = Date.now();
        // Members are versions scored by the expiry of their newest heartbeat.
        const live = await redis.zrangebyscore(keys.served(kind), `(${now}`, '+inf');
        return [...new Set(live)];
      } catch (error) {
        // Cannot tell: route nothing to the dead-letter place on a guess.
        opts.onError?.(error);
        return undefined;
      }
    },

    // The connection belongs to whoever made it (createStreamsGatewayRuntime closes it).
    close: async () => {},
  };
}

function withoutSnapshot(p: MessagePointer): MessagePointer {
  const { snapshot: _snapshot, ...identity } = p;
  return identity;
}
