// The example app in one process: a gateway on the embedded default (SQLite, local blobs, the
// jobs table as the queue), the example's tenant routes, the built front end, and a worker.
import { join } from 'node:path';
import { createApiKeyAuth, createEmbeddedDispatcher, createGateway, serve } from '@sluice/gateway';
import { createLocalBlobStore, migrate, openDatabase, type SluiceDatabase } from '@sluice/storage';
import { createEmbeddedRuntime, createWorker, type Worker } from '@sluice/worker';
import { createAnalyzeHandler } from '../analysis/handler.js';
import { jobs } from '../jobs.js';
import { demoLogins, type Login } from './logins.js';
import { addStaticFiles } from './static-files.js';
import { addTenantRoutes } from './tenant-routes.js';

/** Largest document an admin may upload (the gateway refuses more before storing a byte). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export interface StartAppOptions {
  dataDir: string;
  /** SQLite file (default `<dataDir>/sluice.db`) or a postgres:// URL. */
  database?: string;
  aiUrl: string;
  port?: number;
  /** The built front end to serve; omitted in dev (vite serves it). */
  webRoot?: string;
  /** Run the worker in this process (default true). */
  worker?: boolean;
}

export interface RunningApp {
  url: string;
  database: SluiceDatabase;
  logins: Login[];
  worker: Worker | undefined;
  close(): Promise<void>;
}

export async function startApp(o: StartAppOptions): Promise<RunningApp> {
  const database = openDatabase({ url: o.database ?? join(o.dataDir, 'sluice.db') });
  await migrate(database);
  const blobs = createLocalBlobStore(join(o.dataDir, 'blobs'));
  const runtime = createEmbeddedDispatcher(database);
  const gateway = createGateway({
    jobs,
    database,
    blobs,
    runtime,
    uploads: { maxBytes: MAX_UPLOAD_BYTES },
    eventPollMs: 25,
  });
  const auth = createApiKeyAuth(database.db);
  addTenantRoutes(gateway.app, { db: database.db, auth, aiUrl: o.aiUrl });
  if (o.webRoot) addStaticFiles(gateway.app, o.webRoot);
  const logins = await demoLogins(database.db, auth, join(o.dataDir, 'logins.json'));
  const running = await serve(gateway, { port: o.port ?? 0 });
  let worker: Worker | undefined;
  if (o.worker !== false) {
    worker = createWorker({
      jobs,
      handlers: { 'document.analyze': { v1: createAnalyzeHandler({ aiUrl: o.aiUrl }) } },
      database,
      blobs,
      runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 50 }),
      concurrency: 2,
      unitConcurrency: 2,
    });
    await worker.start();
  }
  return {
    url: running.url,
    database,
    logins,
    worker,
    async close() {
      await running.close();
      await worker?.stop({ deadlineMs: 5_000 });
      await runtime.close();
      await database.close();
    },
  };
}
