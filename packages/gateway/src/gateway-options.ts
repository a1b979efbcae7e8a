// What `createGateway` takes and returns. Kept apart from the wiring so both stay readable.

import type { JobRegistry, KindLimits, RetentionSettingsInput } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import type { Hono } from 'hono';
import type { Tracer } from '@opentelemetry/api';
import type { AcceptBatchOptions } from './accept/accept-batcher.js';
import type { AuthOptions } from './auth/api-key-auth.js';
import type { Gatekeeper } from './auth/gatekeeper.js';
import type { GatewayHooks } from './hooks.js';
import type { BulkRunnerOptions } from './operator/bulk-runner.js';
import type { DispatchBatchOptions } from './dispatch/dispatch-batcher.js';
import type { EventHub, EventTailer } from './events/event-hub.js';
import type { RuntimeProbes } from './observability/health.js';
import type { GatewayLogger } from './observability/logger.js';
import type { GatewayMetrics, MetricsOptions } from './observability/metrics.js';
import type { AppRouter } from './routers/index.js';
import type { LimitOverrides } from './limits/limits.js';
import type { OrphanSweepResult } from './uploads/orphan-sweeper.js';
import type { RetentionPass } from './retention/run-retention-pass.js';
import type { UploadOptions } from './uploads/uploads.js';
import type { RuntimeRoutes } from './runtimes/runtime-half.js';
import type { WebSocketEndpoint, WebSocketOptions } from './http/websocket.js';
import type { GatewayDispatcher } from './wire/gateway-dispatcher.js';

export interface GatewayOptions<R extends JobRegistry> {
  jobs: R;
  database: SluiceDatabase;
  blobs: BlobStore;
  /** The runtime's dispatcher (its gateway half's); its optional duties are wired when present. */
  runtime: GatewayDispatcher;
  /**
   * With `runtime.capabilities.carriesEvents`: the runtime's events tailer (an events stream),
   * used instead of the database tailer: one tailer per gateway. It also relays this gateway's
   * own events to the other replicas.
   */
  eventTailer?: EventTailer;
  /** Readiness and metrics of the runtime's transport (its server reachable, its queue figures). */
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
  /**
   * Routes the runtime adds to the app (a push platform's signed callbacks: the runs it was
   * handed report their writes here). None unless given.
   */
  runtimeRoutes?: RuntimeRoutes | undefined;
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
  /**
   * `limits.kinds` of the deployment's config: a kind's start limits replacing its declared ones
   * (a runtime without `limitsStarts` refuses a submit of a limited kind).
   */
  kindLimits?: KindLimits | undefined;
  logger?: GatewayLogger;
  /** Spans of the accept path (default: the global tracer provider's, when one is registered). */
  tracer?: Tracer;
  /** This gateway's metrics registry (default: a new one, with process metrics). */
  metrics?: MetricsOptions;
  /**
   * Where `/metrics` is served (it shows every tenant's activity): `'admin'` (default) on the API
   * port for keys with the `metrics:read` scope (a scraper's key) or `admin`; `'listener'` only on
   * `metricsApp`, for a separate private listener (`serveMetrics`).
   */
  metricsAccess?: 'admin' | 'listener';
  /**
   * More Prometheus text served on `/metrics` after the gateway's own (`sluice dev`: the worker
   * that runs in the same process), so one scrape sees both halves. A family the gateway already
   * has (the process metrics both registries collect) is left out, as a scrape with a family
   * twice is refused.
   */
  extraMetrics?: () => Promise<string>;
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
   * Retention of ended jobs (docs/operations/retention.md): rules per state over the kinds'
   * declarations (`default`, `kinds`, `tenants`: tenant > kind > default), the JSONL `archive`,
   * and the sweeper's `batchSize`, `pauseMs`, `maxBatches`, `everyMs`; `enabled: false` turns it
   * off. Checked at construction (INVALID_CONFIG naming the field). Default: on, with the
   * built-in rules (succeeded 7 d; failed, dead-lettered, cancelled, stale 30 d).
   */
  retention?: RetentionSettingsInput | undefined;
  /**
   * The due-job scheduler of delayed jobs (runtimes with `delaysJobs`; one replica at a time).
   * `maxSleepMs` (default 1000) bounds how late a job scheduled through another replica starts.
   */
  scheduler?: { maxSleepMs?: number };
  /**
   * Tracked bulk operations (`bulk.start`): jobs per batch, the pause between batches (the rate
   * limit that keeps other tenants' reads fast), the runner's lease and idle poll.
   */
  bulk?: BulkRunnerOptions | undefined;
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
  /**
   * A retention pass now, as of `now` (the sweeper runs one every `retention.everyMs`); undefined
   * when another replica holds the lock or retention is off.
   */
  sweepRetention(now?: number): Promise<RetentionPass | undefined>;
  /** Stops the sweeper, the sockets and the tailer. Does not close the database or blob store. */
  close(): Promise<void>;
}
