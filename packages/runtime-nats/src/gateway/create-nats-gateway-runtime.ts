// Everything a gateway replica needs for the NATS runtime, built from a URL: the dispatcher, the
// reconciler (started; one active across replicas) with its data-loss detector, and the probes.
// One connection, opened at once and kept (the client reconnects by itself); status events stay
// in the job database, so there is no events tailer here.
//
//   const rt = createNatsGatewayRuntime({ url, database });
//   const gateway = createGateway({ jobs, database, blobs, runtime: rt.dispatcher, runtimeProbes: rt.probes });

import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  answersWithin,
  startReconciler,
  type GatewayLogger,
  type Reconciler,
  type ReconcilerOptions,
  type RuntimeProbes,
} from '@sluice/gateway';
import type { SluiceDatabase } from '@sluice/storage';
import { Gauge } from 'prom-client';
import { connectNats, natsModules, onReconnect } from '../connection.js';
import { createNatsNames, type NatsNames } from '../names.js';
import { createNatsDispatcher, type NatsDispatcher } from './create-nats-dispatcher.js';
import { createNatsDataLossDetector } from './data-loss-detector.js';

type ReconcilerTuning = Omit<ReconcilerOptions, 'database' | 'runtime' | 'loss'>;

export interface NatsGatewayRuntimeOptions {
  url: string;
  database: SluiceDatabase;
  /** Subject and stream prefix (default `sluice`); workers must use the same. */
  prefix?: string;
  /** Reconciler timings, or `false` to run none in this replica. */
  reconciler?: ReconcilerTuning | false;
  /** Bound on the readiness round trip (default 1 000 ms). */
  pingTimeoutMs?: number;
  logger?: GatewayLogger;
}

export interface NatsGatewayRuntime {
  readonly names: NatsNames;
  readonly dispatcher: NatsDispatcher;
  readonly reconciler: Reconciler | undefined;
  readonly probes: RuntimeProbes;
  close(): Promise<void>;
}

interface Client {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

export function createNatsGatewayRuntime(opts: NatsGatewayRuntimeOptions): NatsGatewayRuntime {
  const names = createNatsNames(opts.prefix);
  const report = (what: string) => (error: unknown) => opts.logger?.error(what, { error });
  let connecting: Promise<Client> | undefined;
  let closed = false;
  const client = (): Promise<Client> => {
    if (closed) return Promise.reject(new Error('the nats runtime is closed'));
    connecting ??= (async () => {
      const nc = await connectNats(opts.url, 'sluice-gateway');
      onReconnect(nc, () => dispatcher.forgetStream());
      const { js } = natsModules();
      return { nc, js: js.jetstream(nc), jsm: await js.jetstreamManager(nc) };
    })().catch((error: unknown) => {
      // A server down at start: the next dispatch or tick tries again.
      connecting = undefined;
      throw error;
    });
    return connecting;
  };
  client().catch(report('nats connection'));

  const dispatcher = createNatsDispatcher({ names, client });
  const reconciler = startReconciler(opts.reconciler, {
    database: opts.database,
    runtime: dispatcher,
    loss: createNatsDataLossDetector(names, client, () => dispatcher.forgetStream()),
    onError: report('reconciler'),
  });

  const pingTimeoutMs = opts.pingTimeoutMs ?? 1_000;
  const probes: RuntimeProbes = {
    async unready() {
      const ping = client().then((c) => c.nc.flush().then(() => true));
      return (await answersWithin(ping, pingTimeoutMs)) ? undefined : 'nats unavailable';
    },
    registerMetrics(registry) {
      new Gauge({
        name: 'sluice_nats_jobs_stream_messages',
        help: 'Messages in the NATS jobs stream (dispatched, not yet finished)',
        registers: [registry],
        async collect() {
          const c = await client().catch(() => undefined);
          const info = await c?.jsm.streams.info(names.jobsStream).catch(() => undefined);
          if (info) this.set(info.state.messages);
        },
      });
      new Gauge({
        name: 'sluice_nats_dispatch_failures_total',
        help: 'Dispatches to NATS that failed (their outbox rows stayed for the reconciler)',
        registers: [registry],
        collect() {
          this.set(dispatcher.stats.failures);
        },
      });
    },
  };

  let closing: Promise<void> | undefined;
  return {
    names,
    dispatcher,
    reconciler,
    probes,
    close() {
      closing ??= (async () => {
        await reconciler?.close();
        await dispatcher.close();
        const c = await connecting?.catch(() => undefined);
        closed = true;
        await c?.nc.drain().catch(() => {});
      })();
      return closing;
    },
  };
}
