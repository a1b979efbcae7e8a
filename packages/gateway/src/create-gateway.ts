// createGateway: the Hono app with tRPC at /trpc, uploads, downloads, probes and metrics, the WebSocket
// endpoint for subscriptions, the event hub with its tailer, and the upload sweeper. It owns no
// database or blob store: the caller opens and closes those (after `close()`).
//
//   const gateway = createGateway({ jobs, database, blobs, runtime: createEmbeddedDispatcher(database) });
//   const server = await serve(gateway, { port: 3000 });

import { randomToken, type JobRegistry } from '@sluice/contracts';
import { Gauge } from 'prom-client';
import { NODE_ACCEPT_CRYPTO } from './accept/input-hash.js';
import type { Gateway, GatewayOptions } from './gateway-options.js';
import { createDueScheduler } from './scheduling/due-scheduler.js';
import { releaseSingletons } from './flow/release-singletons.js';
import { createWaitResumer } from './waits/wait-resumer.js';
import { registerTokens } from './waits/token-routes.js';
import { createScheduleFirer } from './scheduling/fire-schedules.js';
import { remoteAddress } from './auth/admit-http.js';
import { createApiKeyAuth } from './auth/api-key-auth.js';
import { registerAuditExport } from './operator/audit-export.js';
import { createBulkRunner } from './operator/bulk-runner.js';
import { createDispatchPath } from './dispatch/dispatch.js';
import { registerDownloads } from './downloads/register-downloads.js';
import { createUrlSigner } from './downloads/signed-urls.js';
import { createDatabaseTailer } from './events/database-tailer.js';
import { createEventHub } from './events/event-hub.js';
import { createMetricsApp, registerHealth } from './observability/health.js';
import { createLogger } from './observability/logger.js';
import { flushJobStates } from './observability/log-job-states.js';
import { registerDatabaseMetrics } from './observability/database-metrics.js';
import { createMetrics, readHistograms } from './observability/metrics.js';
import { createOrphanSweeper } from './uploads/orphan-sweeper.js';
import { createRetentionSweeper } from './retention/retention-sweeper.js';
import { registerUploads, startUploadSweeper, sweepExpiredUploads } from './uploads/uploads.js';
import { createWebSocketEndpoint } from './http/websocket.js';
import { resolveGatewaySettings } from './wire/settings.js';
import { wireGateway } from './wire/wire-gateway.js';

export type { Gateway, GatewayOptions } from './gateway-options.js';

export function createGateway<R extends JobRegistry>(options: GatewayOptions<R>): Gateway<R> {
  const { database, blobs, runtime } = options;
  const logger = options.logger ?? createLogger();
  const onError = (what: string) => (error: unknown) => logger.error(what, { error });
  const metrics = createMetrics(options.metrics);
  const auth = createApiKeyAuth(database.db, options.auth);
  // Checked before anything starts: a wrong setting fails here, naming the field.
  const { limits, hooks, retention } = resolveGatewaySettings(options.jobs, options);
  const tailer =
    runtime.capabilities.carriesEvents && options.eventTailer
      ? options.eventTailer
      : createDatabaseTailer(database, options.eventPollMs, onError('event tailer'));
  const hub = createEventHub(tailer, { onError: onError('event subscriber') });
  const dispatch = createDispatchPath(
    runtime,
    database,
    onError('dispatch after commit'),
    options.dispatchBatch,
  );
  // Signals, tokens and the wait sweep, where the runtime suspends jobs (`durableWaits`).
  const waits = runtime.capabilities.durableWaits
    ? createWaitResumer({
        jobs: options.jobs,
        database,
        runtime,
        dispatch,
        onEvents: (events) => hub.publish(events),
        tokenUsable: hooks.tokenUsable,
      })
    : undefined;
  // Delayed jobs (runtimes with `delaysJobs`) and recurring schedules (every runtime).
  const scheduler = createDueScheduler({
    database,
    runtime,
    dispatch,
    owner: `gw-${randomToken().slice(0, 12)}`,
    onEvents: (events) => hub.publish(events),
    onError: onError('due-job scheduler'),
    waits,
    // Bound late: the acceptor is built below (it tells this scheduler of delayed jobs).
    schedules: createScheduleFirer({
      db: database.db,
      accept: (tenantId, request) => accept(tenantId, request),
      onError: (error, scheduleId) => logger.error('schedule tick refused', { scheduleId, error }),
    }),
    // Singleton keys in `queue` mode: the next held job runs once its key frees.
    ...(runtime.capabilities.singletonKeys && database.capabilities.interactiveTransactions
      ? { releaseHeld: (now: number) => releaseSingletons(database, now) }
      : {}),
    ...options.scheduler,
  });
  const core = wireGateway({
    jobs: options.jobs,
    database,
    blobs,
    runtime,
    logger,
    hooks,
    limits,
    auth,
    hub,
    dispatch,
    crypto: NODE_ACCEPT_CRYPTO,
    metrics,
    onReject: (code) => metrics.reject(code),
    servedVersionsCacheMs: options.servedVersionsCacheMs,
    rollout: options.rollout,
    accept: {
      tracer: options.tracer,
      kindLimits: options.kindLimits,
      onScheduled: (dueAt) => scheduler.poke(dueAt),
      batch: {
        // A second group commit in flight only queues where the database takes one writer at a time.
        maxInFlight: database.capabilities.concurrentWriters ? 2 : 1,
        ...options.acceptBatch,
      },
    },
    address: remoteAddress,
    maxRequestBytes: options.maxRequestBytes,
    closeOnTooLarge: true,
  });
  const { gate, accept, app } = core;
  const signer = createUrlSigner(options.downloads?.signingSecret);
  // Tracked bulk operations, batch by batch under a lease (any replica resumes a dead one's).
  const bulk = createBulkRunner(
    { database, hub, dispatch, logger, hooks, stopRun: core.stopRun },
    options.bulk,
  );
  const router = core.router({
    signer,
    waits,
    onScheduleTick: (at) => scheduler.poke(at),
    bulk,
    latency: () => readHistograms(metrics.registry),
  });
  let closing = false;

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
    extraMetrics: options.extraMetrics,
    gate,
  });
  registerUploads(app, {
    database,
    blobs,
    gate,
    metrics,
    logger,
    options: options.uploads ?? {},
    quotaBytes: limits.tenantStorageBytes,
  });
  registerDownloads(app, { database, blobs, gate, signer, metrics, logger });
  if (waits) registerTokens(app, { waits, metrics, logger, limits, address: remoteAddress });
  options.runtimeRoutes?.(app, {
    database,
    publish: (events) => hub.publish(events),
    onReject: (code) => metrics.reject(code),
  });
  registerAuditExport(app, { database, gate, onReject: (code) => metrics.reject(code) });
  core.mountApi(router);

  const websocket = createWebSocketEndpoint({
    router,
    auth,
    gate,
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

  // Ended jobs past their retention, one replica at a time (the `retention` lock).
  const retentionSweeper = createRetentionSweeper({
    database,
    blobs,
    retention,
    registry: metrics.registry,
    logger,
  });
  retentionSweeper.start();
  scheduler.start();
  bulk.start();

  return {
    app,
    metricsApp: createMetricsApp(metrics, options.extraMetrics),
    router,
    hub,
    metrics,
    websocket,
    gate,
    sweepUploads,
    sweepOrphans,
    sweepRetention: (now) => retentionSweeper.sweep(now),
    async close() {
      if (closing) return;
      closing = true;
      stopSweeper();
      await scheduler.close();
      await bulk.close();
      stopOrphanSweeper();
      await retentionSweeper.close();
      await websocket.close();
      await gate.close();
      await accept.flush();
      await dispatch.flush();
      await hub.close();
      // The job state changes since the last summary line, so the log counts every one.
      flushJobStates(logger);
    },
  };
}
