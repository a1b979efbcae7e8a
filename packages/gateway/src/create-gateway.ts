// createGateway: the Hono app with tRPC at /trpc, uploads, downloads, probes and metrics, the WebSocket
// endpoint for subscriptions, the event hub with its tailer, and the upload sweeper. It owns no
// database or blob store: the caller opens and closes those (after `close()`).
//
//   const gateway = createGateway({ jobs, database, blobs, runtime: createEmbeddedDispatcher(database) });
//   const server = await serve(gateway, { port: 3000 });

import { randomToken, type JobRegistry, type RuntimeDispatcher } from '@sluice/contracts';
import type { BlobStore, Db, SluiceDatabase } from '@sluice/storage';
import { trpcServer } from '@hono/trpc-server';
import { Hono } from 'hono';
import { Gauge } from 'prom-client';
import type { Tracer } from '@opentelemetry/api';
import { createAcceptor } from './accept.js';
import { createDueScheduler } from './scheduling/due-scheduler.js';
import { createScheduleFirer } from './scheduling/fire-schedules.js';
import type { AcceptBatchOptions } from './accept-batcher.js';
import { remoteAddress, retryAfterSeconds } from './auth/admit-http.js';
import { createApiKeyAuth, type AuthOptions } from './auth/api-key-auth.js';
import { createGatekeeper, type Gatekeeper } from './auth/gatekeeper.js';
import { resolveGatewayHooks, type GatewayHooks } from './hooks.js';
import { createDispatchPath } from './dispatch.js';
import { registerDownloads } from './downloads/register-downloads.js';
import { createUrlSigner } from './downloads/signed-urls.js';
import type { DispatchBatchOptions } from './dispatch-batcher.js';
import { createEventHub, type EventHub, type EventTailer } from './events/event-hub.js';
import { createPgTailer } from './events/pg-tailer.js';
import { createSqliteTailer } from './events/sqlite-tailer.js';
import { createMetricsApp, registerHealth, type RuntimeProbes } from './health.js';
import { createLogger, type GatewayLogger } from './logger.js';
import { registerDatabaseMetrics } from './database-metrics.js';
import { createMetrics, type GatewayMetrics, type MetricsOptions } from './metrics.js';
import { createAppRouter, type AppRouter } from './routers/index.js';
import { resolveLimits, type LimitOverrides } from './limits/limits.js';
import { requestLimit } from './request-limit.js';
import { createServedVersionCheck } from './served-versions.js';
import { createOrphanSweeper, type OrphanSweepResult } from './orphan-sweeper.js';
import { createHttpContext, type GatewayContext } from './trpc/context.js';
import {
  registerUploads,
  startUploadSweeper,
  sweepExpiredUploads,
  type UploadOptions,
} from './uploads.js';
import {
  createWebSocketEndpoint,
  type WebSocketEndpoint,
  type WebSocketOptions,
} from './websocket.js';

export interface GatewayOptions<R extends JobRegistry> {
  jobs: R;
  database: SluiceDatabase;
  blobs: BlobStore;
  runtime: RuntimeDispatcher<Db>;
  /**
   * With `runtime.capabilities.carriesEvents`: the runtime's events tailer (an events stream),
   * used instead of the database tailer: one tailer per gateway. It also relays this gateway's
   * own events to the other replicas.
   */
  eventTailer?: EventTailer;
  /** Readiness and metrics of the runtime (Valkey Streams: Redis reachable, stream figures). */
  runtimeProbes?: RuntimeProbes;
  /**
   * Group commit of concurrent submits (accept-batcher.ts). Default: one batch transaction at a
   * time on SQLite (its writers take turns anyway), two on PostgreSQL.
   */
  acceptBatch?: AcceptBatchOptions;
  /** Coalescing of post-commit dispatches (runtimes outside the database). */
  dispatchBatch?: DispatchBatchOptions;
  auth?: AuthOptions;
  /** Test seams (hooks.ts); production passes nothing. */
  hooks?: Partial<GatewayHooks>;
  /** Rate, failed-auth, subscription and input limits (limits/limits.ts has the defaults). */
  limits?: LimitOverrides;
  uploads?: UploadOptions;
  downloads?: {
    /**
     * Key (≥ 32 bytes) of the HMAC-signed download links the gateway issues when the blob store
     * cannot presign. Default: random per process, so links work only on the gateway that made
     * them: give replicas behind one load balancer the same secret.
     */
    signingSecret?: string | Uint8Array;
  };
  /** Browser origins allowed to open WebSockets (`https://app.example.com`). */
  origins?: readonly string[];
  /** Per-kind override of `versions.rolloutPercent` (0–100). */
  rollout?: Readonly<Record<string, number>>;
  logger?: GatewayLogger;
  /** Spans of the accept path (default: the global tracer provider's, when one is registered). */
  tracer?: Tracer;
  /** This gateway's metrics registry (default: a new one, with process metrics). */
  metrics?: MetricsOptions;
  /**
   * Where `/metrics` is served (it shows every tenant's activity): `'admin'` (default) on the API
   * port for keys with the `admin` scope; `'listener'` only on `metricsApp`, for a separate
   * private listener (`serveMetrics`).
   */
  metricsAccess?: 'admin' | 'listener';
  websocket?: WebSocketOptions;
  /**
   * SQLite tailer fallback poll interval (default 50 ms). New events are read as soon as the
   * database's WAL changes; the poll covers what that file watch misses.
   */
  eventPollMs?: number;
  /** Largest tRPC HTTP request body, checked before JSON parsing (default 1 MiB). */
  maxRequestBytes?: number;
  /** How long the served-versions registry is cached (default 1000 ms). */
  servedVersionsCacheMs?: number;
  /**
   * The due-job scheduler of delayed jobs (runtimes with `delaysJobs`; one replica at a time).
   * `maxSleepMs` (default 1000) bounds how late a job scheduled through another replica starts.
   */
  scheduler?: { maxSleepMs?: number };
}

export interface Gateway<R extends JobRegistry = JobRegistry> {
  readonly app: Hono;
  /** `/metrics` alone and unauthenticated, for a private listener (`serveMetrics`). */
  readonly metricsApp: Hono;
  readonly router: AppRouter<R>;
  readonly hub: EventHub;
  readonly metrics: GatewayMetrics;
  readonly websocket: WebSocketEndpoint;
  /** The admission check of every entry point (keys, scopes, rates, stream slots). */
  readonly gate: Gatekeeper;
  /** Deletes expired uploads now (the sweeper does it on its interval). */
  sweepUploads(now?: number): Promise<number>;
  /** Removes crash leftovers of uploads now: stale temporary files and row-less upload blobs. */
  sweepOrphans(now?: number): Promise<OrphanSweepResult>;
  /** Stops the sweeper, the sockets and the tailer. Does not close the database or blob store. */
  close(): Promise<void>;
}

/** The details of a SluiceError cause (its `retryAfterMs`), through tRPC's wrapping. */
function detailsOf(cause: unknown): Record<string, unknown> | undefined {
  for (let c = cause, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const details = (c as { details?: unknown }).details;
    if (typeof details === 'object' && details !== null) return details as Record<string, unknown>;
  }
  return undefined;
}

function createTailer(
  database: SluiceDatabase,
  pollMs: number | undefined,
  onError: (e: unknown) => void,
): EventTailer {
  if (database.dialect === 'postgres' && database.pgPool) {
    return createPgTailer(database.pgPool, database.db, { onError });
  }
  return createSqliteTailer(database.db, {
    intervalMs: pollMs,
    file: database.sqliteFile,
    onError,
  });
}

export function createGateway<R extends JobRegistry>(options: GatewayOptions<R>): Gateway<R> {
  const { database, blobs, runtime } = options;
  const logger = options.logger ?? createLogger();
  const onError = (what: string) => (error: unknown) => logger.error(what, { error });
  const metrics = createMetrics(options.metrics);
  const auth = createApiKeyAuth(database.db, options.auth);
  const limits = resolveLimits(options.limits);
  const gate = createGatekeeper({
    db: database.db,
    auth,
    limits,
    logger,
    hooks: resolveGatewayHooks(options.hooks),
  });
  const tailer =
    runtime.capabilities.carriesEvents && options.eventTailer
      ? options.eventTailer
      : createTailer(database, options.eventPollMs, onError('event tailer'));
  const hub = createEventHub(tailer, { onError: onError('event subscriber') });
  const dispatch = createDispatchPath(
    runtime,
    database,
    onError('dispatch after commit'),
    options.dispatchBatch,
  );
  // Delayed jobs (runtimes with `delaysJobs`) and recurring schedules (every runtime).
  const scheduler = createDueScheduler({
    database,
    runtime,
    dispatch,
    owner: `gw-${randomToken().slice(0, 12)}`,
    onEvents: (events) => hub.publish(events),
    onError: onError('due-job scheduler'),
    // Bound late: the acceptor is built below (it tells this scheduler of delayed jobs).
    schedules: createScheduleFirer({
      db: database.db,
      accept: (tenantId, request) => accept(tenantId, request),
      onError: (error, scheduleId) => logger.error('schedule tick refused', { scheduleId, error }),
    }),
    ...options.scheduler,
  });
  const accept = createAcceptor({
    jobs: options.jobs,
    database,
    dispatch,
    served: createServedVersionCheck(runtime, options.servedVersionsCacheMs),
    hub,
    metrics,
    logger,
    tracer: options.tracer,
    rollout: options.rollout,
    capabilities: runtime.capabilities,
    onScheduled: (dueAt) => scheduler.poke(dueAt),
    batch: {
      maxInFlight: database.dialect === 'postgres' ? 2 : 1,
      ...options.acceptBatch,
    },
  });
  const signer = createUrlSigner(options.downloads?.signingSecret);
  const router = createAppRouter(
    {
      jobs: options.jobs,
      database,
      blobs,
      hub,
      accept,
      dispatch,
      logger,
      signer,
      onScheduleTick: (at) => scheduler.poke(at),
    },
    gate,
    limits.maxInputDepth,
  );
  let closing = false;

  const app = new Hono();
  registerDatabaseMetrics(metrics.registry, database.db);
  new Gauge({
    name: 'sluice_gateway_active_subscriptions',
    help: 'Open event subscriptions.',
    registers: [metrics.registry],
    collect() {
      this.set(hub.listenerCount());
    },
  });
  options.runtimeProbes?.registerMetrics(metrics.registry);
  registerHealth(app, {
    database,
    metrics,
    closing: () => closing,
    runtime: options.runtimeProbes,
    metricsAccess: options.metricsAccess ?? 'admin',
    gate,
  });
  registerUploads(app, { database, blobs, gate, metrics, logger, options: options.uploads ?? {} });
  registerDownloads(app, { database, blobs, gate, signer, metrics, logger });
  app.use(
    '/trpc/*',
    requestLimit({
      maxSize: options.maxRequestBytes ?? 1024 * 1024,
      onError: (c) => {
        metrics.reject('PAYLOAD_TOO_LARGE');
        // The rest of the body is not read: the connection cannot be reused.
        c.header('Connection', 'close');
        return c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'request too large' } }, 413);
      },
    }),
    trpcServer({
      router,
      endpoint: '/trpc',
      // Bounds the work one HTTP request can ask for (httpBatchLink sends up to its own limit).
      maxBatchSize: 50,
      createContext: (_opts, c) =>
        createHttpContext(
          c.req.header('authorization'),
          c.req.header('traceparent'),
          remoteAddress(c),
        ) satisfies GatewayContext,
      // 429s carry Retry-After (the longest any call in the batch must wait).
      responseMeta: ({ errors }) => {
        const limited = errors.filter((e) => e.code === 'TOO_MANY_REQUESTS');
        if (limited.length === 0) return {};
        const seconds = Math.max(
          ...limited.map((e) => Number(retryAfterSeconds(detailsOf(e.cause)))),
        );
        return { headers: { 'retry-after': String(seconds) } };
      },
      onError: ({ error, path }) => {
        metrics.reject(error.code);
        if (error.code === 'INTERNAL_SERVER_ERROR') {
          logger.error('procedure failed', { path, error: error.cause ?? error });
        }
      },
    }),
  );
  app.onError((error, c) => {
    logger.error('request failed', { path: c.req.path, error });
    return c.json({ error: { code: 'INTERNAL', message: 'Internal server error' } }, 500);
  });

  const websocket = createWebSocketEndpoint({
    router,
    auth,
    socketsPerKey: limits.socketsPerKey,
    origins: options.origins ?? [],
    metrics,
    logger,
    options: options.websocket ?? {},
  });
  const sweepUploads = (now?: number) => sweepExpiredUploads(database, blobs, logger, now);
  const stopSweeper = startUploadSweeper(
    sweepUploads,
    options.uploads?.sweepIntervalMs ?? 60_000,
    logger,
  );
  const sweepOrphans = createOrphanSweeper(database.db, blobs, {
    graceMs: options.uploads?.orphanGraceMs,
  });
  const stopOrphanSweeper = startUploadSweeper(
    sweepOrphans,
    options.uploads?.orphanSweepIntervalMs ?? 15 * 60_000,
    logger,
  );

  scheduler.start();

  return {
    app,
    metricsApp: createMetricsApp(metrics),
    router,
    hub,
    metrics,
    websocket,
    gate,
    sweepUploads,
    sweepOrphans,
    async close() {
      if (closing) return;
      closing = true;
      stopSweeper();
      await scheduler.close();
      stopOrphanSweeper();
      await websocket.close();
      await gate.close();
      await accept.flush();
      await dispatch.flush();
      await hub.close();
    },
  };
}
