// The example app in one process: a gateway on the embedded runtime with the example's routes
// (download, page), and optionally a worker beside it. The tests run the worker in a child
// process instead, so it can be killed.
import { createEmbeddedDispatcher, createGateway, serve } from '@sluice/gateway';
import {
  createLocalBlobStore,
  migrate,
  openDatabase,
  type BlobStore,
  type SluiceDatabase,
} from '@sluice/storage';
import { createEmbeddedRuntime, createWorker, type Worker } from '@sluice/worker';
import { createVideoHandlers } from '../handlers.js';
import { jobs } from '../jobs.js';
import type { PipelineOptions } from '../options.js';
import { addVideoRoutes } from './video-routes.js';

export interface StartAppOptions {
  /** SQLite file or postgres:// URL. */
  database: string;
  blobsDir: string;
  devApiKey: string;
  port?: number;
  /** Share of new jobs routed to v2 (SLUICE_ROLLOUT_VIDEO_RENDER). */
  rolloutV2?: number;
  /** Run a worker in this process with these pipeline options. */
  worker?: PipelineOptions;
}

export interface RunningApp {
  url: string;
  database: SluiceDatabase;
  blobs: BlobStore;
  worker: Worker | undefined;
  close(): Promise<void>;
}

export async function startApp(o: StartAppOptions): Promise<RunningApp> {
  const database = openDatabase({ url: o.database });
  await migrate(database);
  const blobs = createLocalBlobStore(o.blobsDir);
  const runtime = createEmbeddedDispatcher(database);
  const auth = { devKey: o.devApiKey };
  const gateway = createGateway({
    jobs,
    database,
    blobs,
    runtime,
    auth,
    rollout: { 'video.render': o.rolloutV2 ?? 0 },
  });
  addVideoRoutes(gateway.app, { database, blobs, gate: gateway.gate });
  const running = await serve(gateway, { port: o.port ?? 0 });
  let worker: Worker | undefined;
  if (o.worker) {
    worker = createWorker({
      jobs,
      handlers: createVideoHandlers(o.worker),
      database,
      blobs,
      runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx }),
      concurrency: 2,
      stagingSweepEveryMs: 30_000,
    });
    await worker.start();
  }
  return {
    url: running.url,
    database,
    blobs,
    worker,
    async close() {
      await running.close();
      await worker?.stop({ deadlineMs: 10_000 });
      await runtime.close();
      await database.close();
    },
  };
}
