// Everything a gateway replica needs for the Valkey Streams runtime, built from a URL: the
// dispatcher, the events-stream tailer, the reconciler (started; one active across replicas) and
// the probes. Two connections: one for commands, one for the tailer's blocking read.
//
//   const rt = createStreamsGatewayRuntime({ redisUrl, database });
//   const gateway = createGateway({ jobs, database, blobs, runtime: rt.dispatcher,
//     eventTailer: rt.tailer, runtimeProbes: rt.probes });
//   …
//   await running.close(); await rt.close();

import { createStreamKeys, type StreamKeys } from '@sluice/contracts';
import type { SluiceDatabase } from '@sluice/storage';
import type { Redis } from 'iovalkey';
import { createStreamTailer, type StreamTailer } from '../../events/stream-tailer.js';
import type { RuntimeProbes } from '../../health.js';
import type { GatewayLogger } from '../../logger.js';
import {
  createReconciler,
  type Reconciler,
  type ReconcilerOptions,
} from '../../reconciler/create-reconciler.js';
import { outboxDepth } from '@sluice/storage';
import { createStreamsDataLossDetector } from './data-loss-detector.js';
import { createStreamsDispatcher, type StreamsDispatcher } from './create-streams-dispatcher.js';
import {
  closeConnection,
  createBlockingConnection,
  createCommandConnection,
} from './redis-connection.js';
import { readStreamsSnapshot, registerStreamsMetrics } from './stream-stats.js';
import { sharedRead } from '../../metrics.js';
import { registerReconcilerMetrics } from './reconciler-metrics.js';

type ReconcilerTuning = Omit<ReconcilerOptions, 'database' | 'runtime' | 'loss' | 'onEvents'>;

export interface StreamsGatewayRuntimeOptions {
  redisUrl: string;
  database: SluiceDatabase;
  /** Key prefix (default `sluice`); workers must use the same. */
  prefix?: string;
  /** Approximate cap on each job stream; off by default (workers trim with MINID). */
  maxLen?: number;
  /** Approximate cap on the events stream (default 100 000). */
  eventsMaxLen?: number;
  /** Reconciler timings, or `false` to run none in this replica. */
  reconciler?: ReconcilerTuning | false;
  /** Tailer timings. */
  tailer?: { blockMs?: number; watchdogMarginMs?: number };
  /** Bound on the readiness PING (default 1000 ms). */
  pingTimeoutMs?: number;
  logger?: GatewayLogger;
}

export interface StreamsGatewayRuntime {
  readonly keys: StreamKeys;
  readonly dispatcher: StreamsDispatcher;
  readonly tailer: StreamTailer;
  readonly reconciler: Reconciler | undefined;
  readonly probes: RuntimeProbes;
  /** The command connection (tests and tools). */
  readonly redis: Redis;
  /** Stops the reconciler and the tailer, closes both connections. After the gateway's close. */
  close(): Promise<void>;
}

export function createStreamsGatewayRuntime(
  opts: StreamsGatewayRuntimeOptions,
): StreamsGatewayRuntime {
  const logger = opts.logger;
  const report = (what: string) => (error: unknown) => logger?.error(what, { error });
  const keys = createStreamKeys(opts.prefix);
  const redis = createCommandConnection(opts.redisUrl, { onError: report('redis connection') });
  const reader = createBlockingConnection(opts.redisUrl, { onError: () => {} });
  const dispatcher = createStreamsDispatcher({
    redis,
    keys,
    maxLen: opts.maxLen,
    onError: report('served versions'),
  });
  const tailer = createStreamTailer({
    reader,
    writer: redis,
    key: keys.events,
    maxLen: opts.eventsMaxLen,
    ...opts.tailer,
    onError: report('events stream'),
  });
  const reconciler =
    opts.reconciler === false
      ? undefined
      : createReconciler({
          ...opts.reconciler,
          database: opts.database,
          runtime: dispatcher,
          loss: createStreamsDataLossDetector(redis, keys, dispatcher.knownStreams),
          // Its accepted → queued transitions reach every replica's watchers.
          onEvents: (events) => tailer.relay(events),
          onError: opts.reconciler?.onError ?? report('reconciler'),
        });
  reconciler?.start();

  const pingTimeoutMs = opts.pingTimeoutMs ?? 1000;
  const probes: RuntimeProbes = {
    async unready() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>(
        (r) => (timer = setTimeout(() => r(false), pingTimeoutMs)),
      );
      const ping = redis.ping().then(
        (pong) => pong === 'PONG',
        () => false,
      );
      try {
        return (await Promise.race([ping, timeout])) ? undefined : 'redis unavailable';
      } finally {
        clearTimeout(timer);
      }
    },
    registerMetrics(registry) {
      // One Redis + outbox read per scrape, shared by every gauge that shows it.
      const read = sharedRead(() =>
        Promise.all([readStreamsSnapshot(redis, keys), outboxDepth(opts.database.db)]).then(
          ([snapshot, outbox]) => ({ snapshot, outbox }),
          () => undefined,
        ),
      );
      registerStreamsMetrics(registry, read);
      registerReconcilerMetrics(registry, {
        outbox: async () => (await read())?.outbox,
        dispatcher,
        tailer,
        reconciler,
      });
    },
  };

  let closed: Promise<void> | undefined;
  return {
    keys,
    dispatcher,
    tailer,
    reconciler,
    probes,
    redis,
    close() {
      closed ??= (async () => {
        await reconciler?.close();
        await tailer.close();
        await dispatcher.close();
        await closeConnection(reader);
        await closeConnection(redis);
      })();
      return closed;
    },
  };
}
