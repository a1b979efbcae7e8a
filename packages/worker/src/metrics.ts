// The worker's counters and gauges, its timing histograms, and the prom-client registry that
// serves them on `/metrics`.

import type { RuntimeStats } from '@sluice/contracts';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LimitObserver } from './guard/provider-limiter.js';
import { registerRuntimeStats } from './host/runtime-stats.js';

export interface WorkerCounters {
  /** Deliveries read from the runtime. */
  claimed: number;
  /** Attempts started (`start` or `reclaim`). */
  started: number;
  /** Deliveries admitted from the row their pointer carried (no row read). */
  admittedFromPointer: number;
  reclaimed: number;
  succeeded: number;
  failed: number;
  retried: number;
  deadLettered: number;
  stale: number;
  reviewed: number;
  /** Running attempts stopped because their job was cancelled. */
  cancelled: number;
  /** Deliveries acknowledged without running (finished, gone, duplicate). */
  skipped: number;
  renewals: number;
  renewalFailures: number;
  lostLeases: number;
  /** Running jobs of workers whose heartbeat lapsed, handed to the claim path. */
  reapedJobs: number;
  /** Attempts a start limit held (refunded, the job queued again). */
  limitHolds: number;
  readFailures: number;
  initFailures: number;
  eventsWritten: number;
  eventWriteFailures: number;
  terminalBatches: number;
  terminalWriteFailures: number;
  sweptUnroutable: number;
  /** Provider requests attempted through the guard (each with its ledger row written first). */
  providerCalls: number;
  /** Provider answers reused from the ledger instead of paying again. */
  providerAnswersReused: number;
  /** Provider calls refused before sending (fail-closed declarations): each one is an alert. */
  failClosedRefusals: number;
  /** Steps answered from a checkpoint instead of running again. */
  checkpointsReused: number;
  /** Assets this worker published (staging blob moved to its final key, row inserted). */
  assetsPublished: number;
  /** Asset writes answered with an asset an earlier attempt had published (never rewritten). */
  assetsReused: number;
  /** Staging blobs of dead attempts deleted by the sweeper. */
  stagingSwept: number;
}

export interface WorkerGauges {
  /** Attempts whose handler is executing. */
  running: number;
  /** Deliveries this worker holds (executing or waiting for their terminal write). */
  held: number;
  consecutiveReadFailures: number;
  ready: boolean;
}

export type WorkerMetrics = WorkerCounters & WorkerGauges;

export function createCounters(): WorkerCounters {
  return {
    claimed: 0,
    started: 0,
    admittedFromPointer: 0,
    reclaimed: 0,
    succeeded: 0,
    failed: 0,
    retried: 0,
    deadLettered: 0,
    stale: 0,
    reviewed: 0,
    cancelled: 0,
    skipped: 0,
    renewals: 0,
    renewalFailures: 0,
    lostLeases: 0,
    reapedJobs: 0,
    limitHolds: 0,
    readFailures: 0,
    initFailures: 0,
    eventsWritten: 0,
    eventWriteFailures: 0,
    terminalBatches: 0,
    terminalWriteFailures: 0,
    sweptUnroutable: 0,
    providerCalls: 0,
    providerAnswersReused: 0,
    failClosedRefusals: 0,
    checkpointsReused: 0,
    assetsPublished: 0,
    assetsReused: 0,
    stagingSwept: 0,
  };
}

const HELP: Record<keyof WorkerMetrics, [string, 'counter' | 'gauge']> = {
  claimed: ['Deliveries read from the runtime', 'counter'],
  started: ['Attempts started (start or reclaim)', 'counter'],
  admittedFromPointer: ['Deliveries admitted from the row their pointer carried', 'counter'],
  reclaimed: ['Attempts that took over a job whose lease expired', 'counter'],
  succeeded: ['Jobs this worker moved to succeeded', 'counter'],
  failed: ['Jobs this worker moved to failed', 'counter'],
  retried: ['Attempts that ended in a retry', 'counter'],
  deadLettered: ['Jobs this worker dead-lettered', 'counter'],
  stale: ['Jobs this worker marked stale', 'counter'],
  reviewed: ['Jobs this worker parked in needs_review', 'counter'],
  cancelled: ['Running attempts stopped by a cancel', 'counter'],
  skipped: ['Deliveries acknowledged without running', 'counter'],
  renewals: ['Lease renewals that kept a claim', 'counter'],
  renewalFailures: ['Renewal rounds that failed', 'counter'],
  lostLeases: ['Attempts that lost their lease and were aborted', 'counter'],
  reapedJobs: ['Running jobs of dead workers (heartbeat lapsed) taken from their lease', 'counter'],
  limitHolds: ['Attempts a start limit held (refunded; the job waits queued)', 'counter'],
  readFailures: ['Failed reads (transport or batch load)', 'counter'],
  initFailures: ['Failed runtime initialisations', 'counter'],
  eventsWritten: ['Progress and unit events stored', 'counter'],
  eventWriteFailures: ['Failed event flushes (retried)', 'counter'],
  terminalBatches: ['Terminal transactions committed', 'counter'],
  terminalWriteFailures: ['Failed terminal transactions', 'counter'],
  sweptUnroutable: ['Queued jobs dead-lettered by the unroutable-version sweep', 'counter'],
  providerCalls: ['Provider requests attempted through the guard (ledger row first)', 'counter'],
  providerAnswersReused: ['Provider answers reused from the ledger (not paid again)', 'counter'],
  failClosedRefusals: ['Provider calls refused before sending (fail-closed): alerts', 'counter'],
  checkpointsReused: ['Steps answered from a checkpoint instead of running', 'counter'],
  assetsPublished: ['Assets published (staging blob moved, row inserted)', 'counter'],
  assetsReused: ['Asset writes that reused an already published asset', 'counter'],
  stagingSwept: ['Staging blobs of dead attempts deleted by the sweeper', 'counter'],
  running: ['Attempts executing now', 'gauge'],
  held: ['Deliveries held (executing or finishing)', 'gauge'],
  consecutiveReadFailures: ['Read failures in a row', 'gauge'],
  ready: ['1 when the worker is ready', 'gauge'],
};

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Timings of the hot path, observed with one call each. `NO_OBSERVATIONS` when nobody reads
 * them; `createWorkerMetrics` backs them with prom-client histograms.
 */
export interface WorkerObservations {
  /** From the job's dispatch (created, or due again after a retry) to its handler's start. */
  dispatchToStart(kind: string, seconds: number): void;
  /** From the handler's start to the attempt's decided outcome. */
  jobDuration(kind: string, outcome: string, seconds: number): void;
  /** One request through the provider guard, by declaration class and ledger outcome. */
  providerCall(callClass: string, outcome: string, seconds: number): void;
}

export const NO_OBSERVATIONS: WorkerObservations = {
  dispatchToStart() {},
  jobDuration() {},
  providerCall() {},
};

export interface WorkerMetricsRegistry {
  readonly registry: Registry;
  readonly observe: WorkerObservations;
  /** `sluice_limit_waits_total{limit}` and `sluice_limit_requeues_total{limit}`. */
  readonly limits: LimitObserver;
  /** The Prometheus text of this worker (its runtime's figures read first, bounded). */
  scrape(): Promise<string>;
}

export interface WorkerMetricsOptions {
  /** Register on this registry instead of a new one. Never the process-global default. */
  registry?: Registry | undefined;
  /** Process and Node.js figures (`process_*`, `nodejs_*`; default true). */
  processMetrics?: boolean | undefined;
}

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];
const PREFIX = 'sluice_worker';

/**
 * The worker's registry: its counters and gauges (read from the host's plain fields when
 * scraped: the hot path pays one increment, no label hashing), three histograms, process
 * figures, and the runtime's transport figures when the runtime reports them.
 */
export function createWorkerMetrics(
  read: () => WorkerMetrics,
  runtimeStats: (() => Promise<RuntimeStats | undefined>) | undefined,
  opts: WorkerMetricsOptions = {},
): WorkerMetricsRegistry {
  const registry = opts.registry ?? new Registry();
  const registers = [registry];
  if (opts.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  for (const key of Object.keys(HELP) as (keyof WorkerMetrics)[]) {
    const [help, type] = HELP[key];
    if (type === 'gauge') {
      new Gauge({
        name: `${PREFIX}_${snake(key)}`,
        help,
        registers,
        collect() {
          this.set(Number(read()[key]));
        },
      });
      continue;
    }
    let last = 0;
    new Counter({
      name: `${PREFIX}_${snake(key)}_total`,
      help,
      registers,
      collect() {
        const value = Number(read()[key]);
        if (value > last) this.inc(value - last);
        last = value;
      },
    });
  }
  const dispatch = new Histogram({
    name: `${PREFIX}_dispatch_to_start_seconds`,
    help: 'From dispatch (or due again after a retry) to the handler start, by kind',
    labelNames: ['kind'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const duration = new Histogram({
    name: `${PREFIX}_job_duration_seconds`,
    help: 'Attempt duration from handler start to decided outcome, by kind and outcome',
    labelNames: ['kind', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const calls = new Histogram({
    name: `${PREFIX}_provider_call_seconds`,
    help: 'Provider requests through the guard, by declaration class and ledger outcome',
    labelNames: ['class', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  // Labelled children looked up once per label set: `observe({ kind }, v)` hashed the labels on
  // every job (two histograms per job on the hot path).
  const dispatchOf = new Map<string, { observe(v: number): void }>();
  const durationOf = new Map<string, Map<string, { observe(v: number): void }>>();
  const observe: WorkerObservations = {
    dispatchToStart: (kind, seconds) => {
      let child = dispatchOf.get(kind);
      if (!child) dispatchOf.set(kind, (child = dispatch.labels({ kind })));
      child.observe(seconds);
    },
    jobDuration: (kind, outcome, seconds) => {
      let byOutcome = durationOf.get(kind);
      if (!byOutcome) durationOf.set(kind, (byOutcome = new Map()));
      let child = byOutcome.get(outcome);
      if (!child) byOutcome.set(outcome, (child = duration.labels({ kind, outcome })));
      child.observe(seconds);
    },
    providerCall: (callClass, outcome, seconds) =>
      calls.observe({ class: callClass, outcome }, seconds),
  };
  const waits = new Counter({
    name: 'sluice_limit_waits_total',
    help: 'Calls that found a shared limit full and waited, by limit (provider:<name>)',
    labelNames: ['limit'],
    registers,
  });
  const requeues = new Counter({
    name: 'sluice_limit_requeues_total',
    help: 'Attempts that waited their bound for a shared limit and gave the job back, by limit',
    labelNames: ['limit'],
    registers,
  });
  const limits: LimitObserver = {
    waited: (limit) => waits.inc({ limit }),
    requeued: (limit) => requeues.inc({ limit }),
  };
  const runtime = runtimeStats ? registerRuntimeStats(registry) : undefined;
  return {
    registry,
    observe,
    limits,
    async scrape() {
      if (runtime && runtimeStats) runtime.update(await runtimeStats());
      return registry.metrics();
    },
  };
}
