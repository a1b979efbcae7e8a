// Everything a gateway replica needs for the Valkey Streams runtime, built from a URL: the
// dispatcher, the events-stream tailer, the reconciler (started; one active across replicas) and
// the probes. Two connections: one for commands, one for the tailer's blocking read.
//
//   const rt = createStreamsGatewayRuntime({ redisUrl, database });
//   const gateway = createGateway({ jobs, database, blobs, runtime: rt.dispatcher,
//     eventTailer: rt.tailer, runtimeProbes: rt.probes });
//   …
//   await running.close(); await rt.close();

import { createStreamKeys, type StreamKeys } from '../keys.js';
import type { SluiceDatabase } from '@sluice/storage';
import type { RedisClient } from './redis-client.js';
import { createStreamTailer, type StreamTailer } from './stream-tailer.js';
import type { RuntimeProbes } from '@sluice/gateway';
import type { GatewayLogger } from '@sluice/gateway';
import {
  answersWithin,
  startReconciler,
  type Reconciler,
  type ReconcilerOptions,
} from '@sluice/gateway';
import { holdInOutbox, outboxDepth } from '@sluice/storage';
import { createFairFeeder, type FairFeeder } from './fair-feeder.js';
import { createStreamsDataLossDetector } from './data-loss-detector.js';
import { createStreamsDispatcher, type StreamsDispatcher } from './create-streams-dispatcher.js';
import {
  closeConnection,
  createBlockingConnection,
  createCommandConnection,
} from './redis-connection.js';
import { slotSafeClient } from './slot-safe-client.js';
import { readStreamsSnapshot, registerStreamsMetrics } from './stream-stats.js';
import { sharedRead } from '@sluice/gateway';
import { registerReconcilerMetrics } from './reconciler-metrics.js';

/** Undelivered entries per job stream under fair dispatch, unless configured. */
export const DEFAULT_MAX_UNDELIVERED = 256;

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
  /**
   * Fairness across tenants (bounded-depth dispatch, on by default): at most `maxUndelivered`
   * (default 256) undelivered entries per job stream; what does not fit waits in the database and
   * the fair feeder (every `feedEveryMs`, default 25) hands it out round-robin across tenants.
   * Keep `maxUndelivered` above the workers' total concurrency. `false`: unbounded, arrival order.
   */
  fairness?: { maxUndelivered?: number; feedEveryMs?: number } | false;
  /**
   * Submit pointers carry the accepted row (pointer format 2; default true). Turn off while
   * workers from before format 2 still run (a rolling upgrade): they refuse its extra fields.
   */
  pointerSnapshots?: boolean;
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
  /** The fair feeder (undefined with `fairness: false`). */
  readonly feeder: FairFeeder | undefined;
  readonly probes: RuntimeProbes;
  /** The command connection (tests and tools), typed by the commands the gateway calls. */
  readonly redis: RedisClient;
  /** Stops the reconciler and the tailer, closes both connections. After the gateway's close. */
  close(): Promise<void>;
}

export function createStreamsGatewayRuntime(
  opts: StreamsGatewayRuntimeOptions,
): StreamsGatewayRuntime {
  const logger = opts.logger;
  const report = (what: string) => (error: unknown) => logger?.error(what, { error });
  const keys = createStreamKeys(opts.prefix);
  const connection = createCommandConnection(opts.redisUrl, {
    onError: report('redis connection'),
  });
  // On a cluster, batches across kinds are sent one pipeline per slot (slot-safe-client.ts).
  const redis = slotSafeClient(connection);
  const reader = createBlockingConnection(opts.redisUrl, { onError: () => {} });
  const fairness = opts.fairness === false ? undefined : (opts.fairness ?? {});
  const dispatcher = createStreamsDispatcher({
    redis,
    keys,
    maxLen: opts.maxLen,
    onError: report('served versions'),
    ...(opts.pointerSnapshots !== undefined && { pointerSnapshots: opts.pointerSnapshots }),
    ...(fairness && {
      maxUndelivered: fairness.maxUndelivered ?? DEFAULT_MAX_UNDELIVERED,
      hold: (jobIds) => holdInOutbox(opts.database.db, jobIds),
    }),
  });
  const feeder = fairness
    ? createFairFeeder({
        database: opts.database,
        dispatcher,
        redis,
        everyMs: fairness.feedEveryMs,
        onError: report('fair feeder'),
      })
    : undefined;
  feeder?.start();
  const tailer = createStreamTailer({
    reader,
    writer: redis,
    key: keys.events,
    maxLen: opts.eventsMaxLen,
    ...opts.tailer,
    onError: report('events stream'),
  });
  const reconciler = startReconciler(opts.reconciler, {
    database: opts.database,
    runtime: dispatcher,
    loss: createStreamsDataLossDetector(redis, keys, dispatcher.knownStreams),
    // Its accepted → queued transitions reach every replica's watchers.
    onEvents: (events) => tailer.relay(events),
    onError: report('reconciler'),
  });

  const pingTimeoutMs = opts.pingTimeoutMs ?? 1000;
  const probes: RuntimeProbes = {
    async unready() {
      const ping = redis.ping().then((pong) => pong === 'PONG');
      return (await answersWithin(ping, pingTimeoutMs)) ? undefined : 'redis unavailable';
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
    feeder,
    probes,
    redis,
    close() {
      closed ??= (async () => {
        await feeder?.close();
        await reconciler?.close();
        await tailer.close();
        await dispatcher.close();
        await closeConnection(reader);
        await closeConnection(connection);
      })();
      return closed;
    },
  };
}
