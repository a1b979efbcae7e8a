// The Valkey Streams runtime's dispatch half: pointers XADDed to the stream of their kind and
// version in one pipeline, and the served-versions registry read from the sorted set workers
// heartbeat. Streams live outside the job database, so dispatch runs after commit and the outbox
// row written in the accept transaction covers a crash in between (the reconciler).
//
// Before its first XADD to a stream (again after every reconnect: the server may have restarted
// without its data) the pipeline creates the consumer group at id 0 (MKSTREAM; BUSYGROUP is fine).
// Otherwise a worker that recreates a lost group at `$` after our XADD would never see the entry.

import {
  createStreamKeys,
  encodePointer,
  isBusyGroupError,
  type RuntimeCapabilities,
  type RuntimeDispatcher,
  type StreamKeys,
  VALKEY_STREAMS_CAPABILITIES,
} from '@sluice/contracts';
import type { Db } from '@sluice/storage';
import type { Redis } from 'iovalkey';

/** Stated once in contracts for both halves of the runtime. */
export const STREAMS_CAPABILITIES: RuntimeCapabilities = VALKEY_STREAMS_CAPABILITIES;

/** The commands the dispatcher uses (STYLE.md: depend on the narrowest client shape). */
export type StreamsDispatchClient = Pick<Redis, 'pipeline' | 'zrangebyscore' | 'on'>;

export interface StreamsDispatcherOptions {
  redis: StreamsDispatchClient;
  keys?: StreamKeys;
  /**
   * Approximate cap on each job stream (`MAXLEN ~`). Off by default: before Redis 8.2 MAXLEN can
   * drop entries that are still pending; workers trim with MINID below the oldest pending entry.
   */
  maxLen?: number;
  /** Reports registry reads that failed (then nothing is dead-lettered at dispatch). */
  onError?: (error: unknown) => void;
}

export interface StreamsDispatcher extends RuntimeDispatcher<Db> {
  readonly keys: StreamKeys;
  /** XADD pipelines sent and entries added (tests and metrics). */
  readonly stats: { pipelines: number; entries: number; failures: number };
  /** Job streams this process dispatched to (the reconciler checks they still exist). */
  knownStreams(): string[];
  /** Forget which groups exist (after a detected data loss): the next XADDs recreate them. */
  forgetGroups(): void;
}

export function createStreamsDispatcher(opts: StreamsDispatcherOptions): StreamsDispatcher {
  const { redis } = opts;
  const keys = opts.keys ?? createStreamKeys();
  const stats = { pipelines: 0, entries: 0, failures: 0 };
  const known = new Set<string>();
  const grouped = new Set<string>();
  const trim = opts.maxLen === undefined ? [] : ['MAXLEN', '~', String(opts.maxLen)];
  // A reconnect may be to a server that lost everything: make sure of the groups again.
  redis.on('ready', () => grouped.clear());

  return {
    name: 'valkey-streams',
    capabilities: STREAMS_CAPABILITIES,
    keys,
    stats,
    knownStreams: () => [...known],
    forgetGroups: () => grouped.clear(),

    async dispatch(pointers) {
      if (pointers.length === 0) return;
      // Validates every pointer and its 1 KiB bound before anything is sent.
      const adds = pointers.map((p) => ({
        stream: keys.jobs(p.kind, p.version),
        fields: encodePointer(p),
      }));
      const creating = [...new Set(adds.map((a) => a.stream))].filter((s) => !grouped.has(s));
      const pipe = redis.pipeline();
      // Groups first: a pipeline runs in order, so they exist before the entries arrive.
      for (const stream of creating) pipe.xgroup('CREATE', stream, keys.group, '0', 'MKSTREAM');
      for (const a of adds) pipe.xadd(a.stream, ...trim, '*', ...a.fields);
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
      for (const a of adds) {
        const [error] = results[i++] ?? [new Error('no reply')];
        if (error) failure ??= error;
        else {
          known.add(a.stream);
          stats.entries++;
        }
      }
      // Some entries may be in: the caller keeps every outbox row, and duplicates are harmless.
      if (failure) {
        stats.failures++;
        throw failure;
      }
    },

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
