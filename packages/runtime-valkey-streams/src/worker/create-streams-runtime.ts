// The Valkey Streams runtime, ready to hand to `createWorker`:
//
//   createWorker({ …, runtime: (ctx) => createStreamsRuntime({ redisUrl: process.env.REDIS_URL, ...ctx }) })
//
// `ctx` brings the served versions, the worker id (the consumer name: keep it stable across
// restarts so a restarted worker takes its own pending entries back first) and the lease, which
// is also the idle time after which other consumers may claim an entry.

import { SluiceError, type VersionKey } from '@sluice/contracts';
import { createStreamKeys } from '../keys.js';
import { createStreamsConsumer, type StreamsConsumer } from './consumer.js';
import type { StreamsConnections, StreamsScript } from './types.js';
import { createValkeyConnections } from './create-valkey-connections.js';

export interface StreamsRuntimeOptions {
  /** `redis://host:port[/db]`; or give `connections` (then they are not closed by the runtime). */
  redisUrl?: string | undefined;
  connections?: StreamsConnections | undefined;
  versions: readonly VersionKey[];
  workerId: string;
  /** The lease, and the idle time after which another consumer may claim an entry (default 30 s). */
  leaseMs?: number | undefined;
  /** Most entries claimed from idle consumers per sweep (default 50). */
  claimCount?: number | undefined;
  /** Pause between claim sweeps (default lease / 4, within 100 ms … 5 s). */
  claimEveryMs?: number | undefined;
  /** Every Nth read of new entries takes the lowest non-empty priority band first (default 8). */
  lowBandEvery?: number | undefined;
  /** XREADGROUP BLOCK time (default 2 000 ms); the watchdog fires at block + watchdogMarginMs. */
  blockMs?: number | undefined;
  watchdogMarginMs?: number | undefined;
  /** A command unanswered this long fails and its connection is replaced (default 3 000 ms). */
  commandTimeoutMs?: number | undefined;
  heartbeatEveryMs?: number | undefined;
  servedTtlMs?: number | undefined;
  /** Trimming and idle-consumer clean-up period (default 30 s; 0 = off). */
  maintainEveryMs?: number | undefined;
  reapConsumersIdleMs?: number | undefined;
  eventsMaxLen?: number | undefined;
  deadLettersMaxLen?: number | undefined;
  /** Key prefix (default `sluice`); the gateway must use the same one. */
  keyPrefix?: string | undefined;
  groupStartId?: string | undefined;
  onError?: ((error: unknown) => void) | undefined;
  /** The renewal script (a test seam; default owner-checked). */
  renewScript?: StreamsScript | undefined;
}

export const DEFAULT_STREAMS_LEASE_MS = 30_000;

export function createStreamsRuntime(opts: StreamsRuntimeOptions): StreamsConsumer {
  if (!opts.connections && !opts.redisUrl) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'the valkey-streams runtime needs a redisUrl (REDIS_URL) or connections',
    );
  }
  const connections =
    opts.connections ??
    createValkeyConnections({
      url: opts.redisUrl as string,
      commandTimeoutMs: opts.commandTimeoutMs,
      name: `sluice-worker-${opts.workerId}`.replace(/[^\w.-]/g, '_'),
      onError: opts.onError,
    });
  return createStreamsConsumer({
    connections,
    ownsConnections: !opts.connections,
    keys: createStreamKeys(opts.keyPrefix),
    versions: opts.versions,
    consumerName: opts.workerId,
    claimIdleMs: opts.leaseMs ?? DEFAULT_STREAMS_LEASE_MS,
    claimCount: opts.claimCount,
    claimEveryMs: opts.claimEveryMs,
    lowBandEvery: opts.lowBandEvery,
    blockMs: opts.blockMs,
    watchdogMarginMs: opts.watchdogMarginMs,
    heartbeatEveryMs: opts.heartbeatEveryMs,
    servedTtlMs: opts.servedTtlMs,
    maintainEveryMs: opts.maintainEveryMs,
    reapConsumersIdleMs: opts.reapConsumersIdleMs,
    eventsMaxLen: opts.eventsMaxLen,
    deadLettersMaxLen: opts.deadLettersMaxLen,
    groupStartId: opts.groupStartId,
    onError: opts.onError,
    renewScript: opts.renewScript,
  });
}
