// `createWorker`: handlers + a runtime consumer + the job database (+ blobs) → a worker with a
// lifecycle (`start`, `stop({ deadlineMs })`), readiness, metrics and, when asked, a probes
// server. The runtime may be given built, or as a factory that receives the served versions,
// worker id and lease length, so they are stated once.

import type { KindLimits, ProviderLimits } from '@sluice/contracts';
import type {
  JobRegistry,
  RuntimeConsumer,
  RuntimeConsumerContext,
  RuntimeStats,
  VersionKey,
} from '@sluice/contracts';
import { SluiceError } from '@sluice/contracts';
import type { Tracer } from '@opentelemetry/api';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import { DEFAULT_LEASE_MS, defaultWorkerId } from './backends/create-embedded-runtime.js';
import { resolveHandlers, type HandlerRegistry } from './attempt/handler-registry.js';
import { resolveHooks, type WorkerHooks } from './hooks.js';
import { createStderrLogger, type WorkerLogger } from './logger.js';
import { createWorkerMetrics, type WorkerMetrics, type WorkerMetricsOptions } from './metrics.js';
import { startProbes, type ProbesServer } from './host/probes-server.js';
import { RuntimeHost } from './host/runtime-host.js';
import { DEFAULT_DEAD_AFTER_MS, DEFAULT_LIVENESS_EVERY_MS } from './host/liveness.js';
import { gateFor, limiterFor } from './host/limits-for.js';
import { runtimeServedVersions } from './host/runtime-stats.js';
import type { CheckpointStore } from './attempt/step.js';
import type { SettledJob } from './writers/finish-plan.js';

/** What a runtime's consumer factory is given (contracts `RuntimeConsumerContext`). */
export type RuntimeContext = RuntimeConsumerContext;

export type RuntimeOption = RuntimeConsumer | ((ctx: RuntimeContext) => RuntimeConsumer);

export interface CreateWorkerOptions<R extends JobRegistry = JobRegistry> {
  jobs: R;
  handlers: HandlerRegistry<R>;
  runtime: RuntimeOption;
  database: SluiceDatabase;
  blobs?: BlobStore | undefined;
  /** Attempts executing at once. */
  concurrency: number;
  /** Deliveries per read (default: concurrency, at most 256). */
  readBatch?: number | undefined;
  /** Deliveries held waiting for a slot beyond the executing ones (default: the read batch). */
  prefetch?: number | undefined;
  /**
   * How long an attempt runs before it writes its start unasked (default 250 ms): a job that ends
   * sooner, having made no provider call or asset, is started and finished by one write; one that
   * runs longer shows `running` (and then its progress) to watchers after this delay.
   */
  lazyStartMs?: number | undefined;
  leaseMs?: number | undefined;
  renewEveryMs?: number | undefined;
  /**
   * Liveness beat period (default 1000 ms) and the age of a beat past which its worker is dead
   * and its running jobs are taken over (default 5000 ms): a dead process is found in seconds,
   * the lease stays the bound for one alive but stuck.
   */
  livenessEveryMs?: number | undefined;
  deadAfterMs?: number | undefined;
  unitConcurrency?: number | undefined;
  workerId?: string | undefined;
  probes?: { port: number; hostname?: string | undefined } | undefined;
  logger?: WorkerLogger | undefined;
  /** Spans of attempts and provider calls (default: the global provider's, when registered). */
  tracer?: Tracer | undefined;
  /** This worker's metrics registry (default: a new one, with process metrics). */
  metrics?: WorkerMetricsOptions | undefined;
  unreadyAfterReadFailures?: number | undefined;
  unroutableGraceMs?: number | undefined;
  sweepEveryMs?: number | undefined;
  /** Versions of a kind some live worker serves, for the sweep (default: the served-versions table). */
  servedVersions?: ((kind: string) => Promise<readonly string[]>) | undefined;
  checkpoints?: CheckpointStore | undefined;
  /** How often staging blobs of dead attempts are swept (default 60 s; 0 = never). Needs `blobs`. */
  stagingSweepEveryMs?: number | undefined;
  /** Retry backoff of ordinary errors (default base 1 s, cap 60 s, full jitter). */
  retryBackoff?: { baseMs?: number; maxMs?: number } | undefined;
  /**
   * Shared limits that override the job definitions' declarations: provider name → max
   * concurrent guarded calls, calls per second, wait bound (guard/provider-limiter.ts).
   */
  limits?:
    | {
        providers?: ProviderLimits | undefined;
        /**
         * Start limits by job kind (max running, starts per second; per kind, tenant, API key):
         * an entry replaces the kind's declared `limits` (host/start-gate.ts).
         */
        kinds?: KindLimits | undefined;
      }
    | undefined;
  /**
   * Delay before a job held by a `maxRunning` start limit is due again (default 1 s), on a
   * runtime whose transport brings held jobs back (where the job table is the queue a held job
   * waits on the limit's waiting list instead: `limitWaitBackstopMs`).
   */
  limitHoldMs?: number | undefined;
  /**
   * The longest such delay (default 5 s): a job that keeps being held is due again after as long
   * as it has waited so far, between `limitHoldMs` and this (host/start-gate.ts `holdDelayMs`).
   */
  limitHoldMaxMs?: number | undefined;
  /**
   * Where the job table is the queue (the embedded runtime): when a job on a `maxRunning`
   * waiting list is due without a wake (default 60 s). A slot given back wakes the next waiters
   * at once; this only bounds what a lost wake costs (host/start-gate.ts).
   */
  limitWaitBackstopMs?: number | undefined;
  /**
   * Test seams: crash points and injected decisions (crash-point and fault-injection tests).
   * Leave unset in production: the real decisions and no-op points are used.
   */
  hooks?: Partial<WorkerHooks> | undefined;
  /** Called after terminal outcomes are stored and their deliveries finished. */
  onSettled?: ((jobs: readonly SettledJob[]) => void) | undefined;
}

export interface Worker {
  readonly workerId: string;
  /** The (kind, version) pairs this worker serves. */
  readonly versions: readonly VersionKey[];
  /** Resolves once ready (runtime initialised, read loop running). */
  start(): Promise<void>;
  stop(opts?: { deadlineMs?: number }): Promise<void>;
  isReady(): boolean;
  metrics(): WorkerMetrics;
  /** The Prometheus text `/metrics` serves (this worker's own prom-client registry). */
  scrapeMetrics(): Promise<string>;
  /** The runtime's transport figures (stream length, pending …), when it reports them. */
  runtimeStats(): Promise<RuntimeStats | undefined>;
  /** Set once `start()` has the probes server listening. */
  readonly probes: { port: number; url: string } | undefined;
}

function positiveInt(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new SluiceError('INVALID_CONFIG', `${name} must be an integer ≥ 1, got ${String(value)}`);
  }
}

export function createWorker<R extends JobRegistry>(opts: CreateWorkerOptions<R>): Worker {
  positiveInt('concurrency', opts.concurrency);
  positiveInt('readBatch', opts.readBatch);
  positiveInt('unitConcurrency', opts.unitConcurrency);
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const renewEveryMs = opts.renewEveryMs ?? Math.min(10_000, Math.floor(leaseMs / 3));
  if (renewEveryMs >= leaseMs) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `renewEveryMs (${renewEveryMs}) must be shorter than leaseMs (${leaseMs})`,
    );
  }
  const livenessEveryMs = opts.livenessEveryMs ?? DEFAULT_LIVENESS_EVERY_MS;
  const deadAfterMs = opts.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS;
  if (!(livenessEveryMs >= 1) || !(deadAfterMs > livenessEveryMs)) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `deadAfterMs (${deadAfterMs}) must be longer than livenessEveryMs (${livenessEveryMs})`,
    );
  }
  const handlers = resolveHandlers(opts.jobs, opts.handlers as HandlerRegistry);
  const workerId = opts.workerId ?? defaultWorkerId();
  const logger = opts.logger ?? createStderrLogger();
  const consumer =
    typeof opts.runtime === 'function'
      ? opts.runtime({
          versions: handlers.versions,
          workerId,
          leaseMs,
          onError: (error) => logger.warn('runtime background task failed', { error }),
        })
      : opts.runtime;
  if (!consumer.capabilities.pullsDeliveries) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `runtime "${consumer.name}" pushes work: it needs no worker process`,
    );
  }
  // Best effort and bounded: a transport that does not answer must not hang `/metrics`.
  const runtimeStats = async (): Promise<RuntimeStats | undefined> => {
    if (!consumer.stats) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 2000)));
    try {
      return await Promise.race([consumer.stats(), timeout]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  };

  // Read when scraped: `host` exists by then.
  const metrics = createWorkerMetrics(
    () => host.metrics(),
    consumer.stats ? runtimeStats : undefined,
    opts.metrics,
  );
  const host = new RuntimeHost({
    consumer,
    database: opts.database,
    blobs: opts.blobs,
    handlers,
    concurrency: opts.concurrency,
    readBatch: opts.readBatch,
    leaseMs,
    renewEveryMs,
    livenessEveryMs,
    deadAfterMs,
    lazyStartMs: opts.lazyStartMs,
    prefetch: opts.prefetch,
    workerId,
    unitConcurrency: opts.unitConcurrency,
    unreadyAfterReadFailures: opts.unreadyAfterReadFailures,
    unroutableGraceMs: opts.unroutableGraceMs,
    sweepEveryMs: opts.sweepEveryMs,
    // A runtime with its own served-versions registry (outside the database) feeds the sweep.
    servedVersions: opts.servedVersions ?? runtimeServedVersions(consumer),
    checkpoints: opts.checkpoints,
    stagingSweepEveryMs: opts.stagingSweepEveryMs,
    retryBackoff: opts.retryBackoff,
    limiter: limiterFor(opts, metrics.limits),
    gate: gateFor(opts, metrics.limits, renewEveryMs),
    logger,
    observe: metrics.observe,
    tracer: opts.tracer,
    hooks: resolveHooks(opts.hooks),
    onSettled: opts.onSettled,
  });
  let probes: ProbesServer | undefined;
  let starting: Promise<void> | undefined;

  return {
    workerId,
    versions: handlers.versions,
    get probes() {
      return probes ? { port: probes.port, url: probes.url } : undefined;
    },
    start() {
      starting ??= (async () => {
        if (opts.probes) {
          probes = await startProbes({
            port: opts.probes.port,
            hostname: opts.probes.hostname,
            isReady: () => host.isReady(),
            metrics: () => metrics.scrape(),
            contentType: metrics.registry.contentType,
          });
          // `bound`: the interface as given (every one when none is), beside a URL to reach it.
          logger.info('worker probes listening', {
            url: probes.url,
            bound: `${opts.probes.hostname || '*'}:${probes.port}`,
          });
        }
        await host.start();
      })();
      return starting;
    },
    async stop(stopOpts = {}) {
      await host.stop(stopOpts);
      await probes?.close();
    },
    isReady: () => host.isReady(),
    metrics: () => host.metrics(),
    scrapeMetrics: () => metrics.scrape(),
    runtimeStats,
  };
}
