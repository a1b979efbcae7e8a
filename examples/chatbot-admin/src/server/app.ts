// The example app: a gateway with the example's tenant routes and the built front end, and a
// worker, in one process (`role: 'all'`, the default) or apart (`gateway` / `worker`). The
// embedded default keeps everything in one SQLite file and a blob folder; with
// `runtime: 'valkey-streams'` the queue is Valkey/Redis Streams and the state PostgreSQL, for
// separate gateway and worker processes (and replicas of each).
import { join } from 'node:path';
import {
  createApiKeyAuth,
  createEmbeddedDispatcher,
  createGateway,
  serve,
  type GatewayOptions,
} from '@sluice/gateway';
import { createLocalBlobStore, migrate, openDatabase, type SluiceDatabase } from '@sluice/storage';
import {
  createEmbeddedRuntime,
  createWorker,
  type RuntimeOption,
  type Worker,
} from '@sluice/worker';
import { createAnalyzeHandler } from '../analysis/handler.js';
import { jobs, type Jobs } from '../jobs.js';
import { demoLogins, type Login } from './logins.js';
import { addStaticFiles } from './static-files.js';
import { addTenantRoutes } from './tenant-routes.js';
import { createStreamsGatewayRuntime, createStreamsRuntime } from '@sluice/runtime-valkey-streams';

/** Largest document an admin may upload (the gateway refuses more before storing a byte). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export type Runtime = { kind: 'embedded' } | { kind: 'valkey-streams'; redisUrl: string };

export interface StartAppOptions {
  dataDir: string;
  /** SQLite file (default `<dataDir>/sluice.db`) or a postgres:// URL. */
  database?: string;
  /** Default embedded. */
  runtime?: Runtime;
  /** What this process runs (default both). */
  role?: 'all' | 'gateway' | 'worker';
  aiUrl: string;
  port?: number;
  /** The built front end to serve; omitted in dev (vite serves it). */
  webRoot?: string;
  /**
   * Share of new documents analysed by `document.analyze` v2 (0–100; default the job
   * definition's). Read by the gateway only: the version is chosen at accept.
   */
  rolloutPercent?: number;
  /** Run the worker in this process (default true unless `role` is `gateway`). */
  worker?: boolean;
}

export interface RunningApp {
  /** The gateway's URL ('' for a worker-only process). */
  url: string;
  database: SluiceDatabase;
  logins: Login[];
  worker: Worker | undefined;
  close(): Promise<void>;
}

type GatewayRuntime = Pick<GatewayOptions<Jobs>, 'runtime' | 'eventTailer' | 'runtimeProbes'> & {
  close(): Promise<void>;
};

function gatewayRuntime(runtime: Runtime, database: SluiceDatabase): GatewayRuntime {
  if (runtime.kind === 'embedded') {
    const dispatcher = createEmbeddedDispatcher(database);
    return { runtime: dispatcher, close: () => dispatcher.close() };
  }
  const rt = createStreamsGatewayRuntime({ redisUrl: runtime.redisUrl, database });
  return {
    runtime: rt.dispatcher,
    eventTailer: rt.tailer,
    runtimeProbes: rt.probes,
    close: () => rt.close(),
  };
}

function workerRuntime(runtime: Runtime, database: SluiceDatabase): RuntimeOption {
  return runtime.kind === 'embedded'
    ? (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 50 })
    : (ctx) => createStreamsRuntime({ redisUrl: runtime.redisUrl, ...ctx });
}

export async function startApp(o: StartAppOptions): Promise<RunningApp> {
  const runtime = o.runtime ?? { kind: 'embedded' };
  const role = o.role ?? 'all';
  const database = openDatabase({
    url: o.database ?? join(o.dataDir, 'sluice.db'),
    // On Streams the events travel on Valkey; PostgreSQL need not NOTIFY them.
    notifyEvents: runtime.kind === 'embedded',
  });
  await migrate(database);
  const blobs = createLocalBlobStore(join(o.dataDir, 'blobs'));
  let url = '';
  let logins: Login[] = [];
  let closeGateway = async () => {};
  if (role !== 'worker') {
    const parts = gatewayRuntime(runtime, database);
    const gateway = createGateway({
      jobs,
      database,
      blobs,
      ...parts,
      uploads: { maxBytes: MAX_UPLOAD_BYTES },
      ...(o.rolloutPercent === undefined
        ? {}
        : { rollout: { 'document.analyze': o.rolloutPercent } }),
      eventPollMs: 25,
    });
    const auth = createApiKeyAuth(database.db);
    addTenantRoutes(gateway.app, { db: database.db, gate: gateway.gate, aiUrl: o.aiUrl });
    if (o.webRoot) addStaticFiles(gateway.app, o.webRoot);
    logins = await demoLogins(database.db, auth, join(o.dataDir, 'logins.json'));
    const running = await serve(gateway, { port: o.port ?? 0 });
    url = running.url;
    closeGateway = async () => {
      await running.close();
      await parts.close();
    };
  }
  let worker: Worker | undefined;
  if (o.worker ?? role !== 'gateway') {
    worker = createWorker({
      jobs,
      // Both versions, always: a job keeps the version it was accepted with, so v1 stays served
      // until no v1 job (queued, retried or requeued) is left, whatever the rollout says.
      handlers: {
        'document.analyze': {
          v1: createAnalyzeHandler({ version: 'v1', aiUrl: o.aiUrl }),
          v2: createAnalyzeHandler({ version: 'v2', aiUrl: o.aiUrl }),
        },
      },
      database,
      blobs,
      runtime: workerRuntime(runtime, database),
      concurrency: 2,
      unitConcurrency: 2,
    });
    await worker.start();
  }
  return {
    url,
    database,
    logins,
    worker,
    async close() {
      await closeGateway();
      await worker?.stop({ deadlineMs: 5_000 });
      await database.close();
    },
  };
}
