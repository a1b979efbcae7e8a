// The gateway host of rows 6–8: one long-lived child that runs one gateway at a time, started
// per run on that run's database (`createGateway` + `serve`, embedded dispatcher, local blob
// store), exactly as an application would start it. The process outlives runs so its module
// loading (about 3 s under tsx here) is paid once per suite, not once per run. For row 6's
// ceiling the bench (never the gateway) adds a bare tRPC mutation to the same Hono app at
// `/bare`: same process, same server stack, no auth, no validation, no database.
import { trpcServer } from '@hono/trpc-server';
import {
  createEmbeddedDispatcher,
  createGateway,
  serve,
  UNLIMITED_RATE,
  type Gateway,
} from '@sluice/gateway';
import { createLocalBlobStore, openDatabase, type SluiceDatabase } from '@sluice/storage';
import { initTRPC } from '@trpc/server';
import type { CreateService } from '../harness/service.js';
import { benchJobs } from '../sluice/bench-job.js';
import { installSqlStats } from '../sluice/sql-stats.js';

export interface GatewayStartArgs {
  url: string;
  blobDir: string;
  maxUploadBytes: number;
  /** SQLite tailer poll (the gateway's `eventPollMs`); the product default when absent. */
  eventPollMs?: number;
}

export const BARE_PATH = '/bare/noop';

/** The ceiling's router: one mutation that parses its input (JSON) and answers a constant. */
function bareRouter() {
  const t = initTRPC.create({ isDev: false });
  return t.router({
    noop: t.procedure.input((raw: unknown) => raw).mutation(() => ({ ok: true })),
  });
}

interface Running {
  database: SluiceDatabase;
  gateway: Gateway<typeof benchJobs>;
  close(): Promise<void>;
}

async function startGateway(args: GatewayStartArgs): Promise<Running & { url: string }> {
  const database = openDatabase({ url: args.url });
  const gateway = createGateway({
    jobs: benchJobs,
    database,
    blobs: createLocalBlobStore(args.blobDir),
    runtime: createEmbeddedDispatcher(database),
    uploads: { maxBytes: args.maxUploadBytes, sweepIntervalMs: 0 },
    // The benchmark measures the gateway, not its per-key limits.
    limits: {
      keyRate: UNLIMITED_RATE,
      tenantRate: UNLIMITED_RATE,
      subscriptionsPerKey: 1_000_000,
      subscriptionsPerSocket: 1_000_000,
      // The watchers scenario opens one socket per simulated browser tab, all with one key.
      socketsPerKey: 1_000_000,
    },
    ...(args.eventPollMs ? { eventPollMs: args.eventPollMs } : {}),
  });
  gateway.app.use('/bare/*', trpcServer({ router: bareRouter(), endpoint: '/bare' }));
  await gateway.hub.ready();
  const running = await serve(gateway, { port: 0 });
  return {
    url: running.url,
    database,
    gateway,
    async close() {
      await running.close();
      await database.close();
    },
  };
}

export const createService: CreateService = async () => {
  let current: Running | undefined;
  let runs = 0;
  const sqlStats = installSqlStats();
  const stop = async () => {
    const running = current;
    current = undefined;
    if (!running) return;
    // Diagnostics (BENCH_SQL_STATS): statements per accepted job in this run.
    sqlStats?.write(`gateway-${process.pid}-${runs}`, running.gateway.metrics.submits);
    await running.close();
  };
  return {
    info: { pid: process.pid },
    methods: {
      async start(args) {
        await stop();
        sqlStats?.reset();
        runs++;
        const started = await startGateway(args as GatewayStartArgs);
        current = started;
        return { url: started.url };
      },
      stop: () => stop().then(() => null),
      // Open sockets and active subscriptions, for the watcher row's checks.
      stats: () =>
        Promise.resolve({
          sockets: current?.gateway.websocket.count() ?? 0,
          subscriptions: current?.gateway.hub.listenerCount() ?? 0,
        }),
    },
    close: stop,
  };
};
