// The Valkey Streams runtime, ready to hand to `createWorker`:
//
//   createWorker({ …, runtime: (ctx) => createStreamsRuntime({ redisUrl: process.env.REDIS_URL, ...ctx }) })
//
// `ctx` brings the served versions, the worker id (the consumer name: keep it stable across
// restarts so a restarted worker takes its own pending entries back first) and the lease, which
// is also the idle time after which other consumers may claim an entry.

import { SluiceError } from '@sluice/contracts';
import { createStreamKeys } from '../keys.js';
import { createStreamsConsumer, type StreamsConsumer } from './consumer.js';
import type { StreamsConsumerOptions } from './context.js';
import type { StreamsConnections } from './types.js';
import { createValkeyConnections } from './create-valkey-connections.js';

/** The consumer's options a runtime caller gives as they are; the rest are named below. */
type PassedOptions = Omit<
  StreamsConsumerOptions,
  'connections' | 'ownsConnections' | 'keys' | 'consumerName' | 'claimIdleMs'
>;

export interface StreamsRuntimeOptions extends PassedOptions {
  /** `redis://host:port[/db]`; or give `connections` (then they are not closed by the runtime). */
  redisUrl?: string | undefined;
  connections?: StreamsConnections | undefined;
  /** The consumer name: keep it stable across restarts so own pending entries come back first. */
  workerId: string;
  /** The lease, and the idle time after which another consumer may claim an entry (default 30 s). */
  leaseMs?: number | undefined;
  /** A command unanswered this long fails and its connection is replaced (default 3 000 ms). */
  commandTimeoutMs?: number | undefined;
  /** Key prefix (default `sluice`); the gateway must use the same one. */
  keyPrefix?: string | undefined;
}

export const DEFAULT_STREAMS_LEASE_MS = 30_000;

export function createStreamsRuntime(opts: StreamsRuntimeOptions): StreamsConsumer {
  if (!opts.connections && !opts.redisUrl) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'the valkey-streams runtime needs a redisUrl (REDIS_URL) or connections',
    );
  }
  const {
    redisUrl,
    connections: given,
    workerId,
    leaseMs,
    commandTimeoutMs,
    keyPrefix,
    ...passed
  } = opts;
  const connections =
    given ??
    createValkeyConnections({
      url: redisUrl as string,
      commandTimeoutMs,
      name: `sluice-worker-${workerId}`.replace(/[^\w.-]/g, '_'),
      onError: opts.onError,
    });
  return createStreamsConsumer({
    ...passed,
    connections,
    ownsConnections: !given,
    keys: createStreamKeys(keyPrefix),
    consumerName: workerId,
    claimIdleMs: leaseMs ?? DEFAULT_STREAMS_LEASE_MS,
  });
}
