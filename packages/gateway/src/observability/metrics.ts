// Gateway metrics on a prom-client registry of its own (never the process-global default: two
// gateways in one process must not collide). Counters the request path moves are plain fields
// (one increment, no label hashing); prom-client reads them when scraped. Histograms observe
// with one call. Database and runtime figures are collect() callbacks (database-metrics.ts,
// the runtime's own registration), read when scraped.
//
// This folder is what the gateway tells its operators: these metrics and their collectors, the
// probes and the `/metrics` endpoint (health.ts), the logger and job state lines (logger.ts,
// log-job-states.ts), and the accept span (tracing.ts).

import type { HistogramView } from '@sluice/contracts';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** How a submit ended, for the accept-latency histogram. */
export type AcceptOutcome = 'accepted' | 'duplicate' | 'unroutable' | 'rejected';

/** What flow control did with a submit (a label of `sluice_gateway_flow_submits_total`). */
export type FlowOutcome = 'opened' | 'folded' | 'skipped' | 'appended' | 'held';

export interface GatewayMetrics {
  submits: number;
  duplicates: number;
  unroutable: number;
  uploads: number;
  uploadBytes: number;
  /** Rejected calls by tRPC (or HTTP) error code. */
  rejects: Map<string, number>;
  reject(code: string): void;
  /** Seconds from a submit's arrival to its answer (the accept transaction included). */
  observeAccept(outcome: AcceptOutcome, seconds: number): void;
  /** Flow-controlled submits by `<flow>\u0000<outcome>` (a Map update on the request path). */
  readonly flows: Map<string, number>;
  countFlow(flow: string, outcome: FlowOutcome): void;
  /** This gateway's registry: `/metrics` renders it; runtimes add their collectors to it. */
  readonly registry: Registry;
}

export interface MetricsOptions {
  /** Register on this registry instead of a new one (to serve several components on one page). */
  registry?: Registry | undefined;
  /** Process and Node.js figures (`process_*`, `nodejs_*`; default true). */
  processMetrics?: boolean | undefined;
}

/** Accept latency buckets: group commit answers in milliseconds; a slow disk shows past 1 s. */
const ACCEPT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A counter whose value lives elsewhere (a plain field): prom-client adds the growth on scrape. */
export function counterFrom(
  registry: Registry,
  name: string,
  help: string,
  read: () => number,
): void {
  let last = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const value = read();
      if (value < last) this.reset();
      else if (value > last) this.inc(value - last);
      last = value;
    },
  });
}

export function createMetrics(opts: MetricsOptions = {}): GatewayMetrics {
  const registry = opts.registry ?? new Registry();
  if (opts.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const rejects = new Map<string, number>();
  const accept = new Histogram({
    name: 'sluice_gateway_accept_seconds',
    help: 'Submit latency: arrival to answer, by outcome.',
    labelNames: ['outcome'],
    buckets: ACCEPT_BUCKETS,
    registers: [registry],
  });
  const metrics: GatewayMetrics = {
    submits: 0,
    duplicates: 0,
    unroutable: 0,
    uploads: 0,
    uploadBytes: 0,
    rejects,
    reject(code) {
      rejects.set(code, (rejects.get(code) ?? 0) + 1);
    },
    observeAccept(outcome, seconds) {
      accept.observe({ outcome }, seconds);
    },
    flows: new Map(),
    countFlow(flow, outcome) {
      const key = `${flow}\u0000${outcome}`;
      metrics.flows.set(key, (metrics.flows.get(key) ?? 0) + 1);
    },
    registry,
  };
  counterFrom(
    registry,
    'sluice_gateway_submits_total',
    'Accepted submits (new jobs).',
    () => metrics.submits,
  );
  counterFrom(
    registry,
    'sluice_gateway_duplicates_total',
    'Submits answered with an existing job.',
    () => metrics.duplicates,
  );
  counterFrom(
    registry,
    'sluice_gateway_unroutable_total',
    'Jobs dead-lettered at accept.',
    () => metrics.unroutable,
  );
  counterFrom(registry, 'sluice_gateway_uploads_total', 'Stored uploads.', () => metrics.uploads);
  counterFrom(
    registry,
    'sluice_gateway_upload_bytes_total',
    'Bytes of stored uploads.',
    () => metrics.uploadBytes,
  );
  const flowsCounted = new Map<string, number>();
  new Counter({
    name: 'sluice_gateway_flow_submits_total',
    help: 'Flow-controlled submits by flow and what became of them.',
    labelNames: ['flow', 'outcome'],
    registers: [registry],
    collect() {
      for (const [key, n] of metrics.flows) {
        const [flow, outcome] = key.split('\u0000') as [string, string];
        const growth = n - (flowsCounted.get(key) ?? 0);
        if (growth > 0) this.inc({ flow, outcome }, growth);
        flowsCounted.set(key, n);
      }
    },
  });
  const counted = new Map<string, number>();
  new Counter({
    name: 'sluice_gateway_rejects_total',
    help: 'Rejected calls by error code.',
    labelNames: ['code'],
    registers: [registry],
    collect() {
      // Counted in the map, so the request path pays one Map update, never label hashing.
      for (const [code, n] of rejects) {
        const growth = n - (counted.get(code) ?? 0);
        if (growth > 0) this.inc({ code }, growth);
        counted.set(code, n);
      }
    },
  });
  return metrics;
}

/** One read shared by every collector of one scrape: prom-client collects them concurrently. */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

/**
 * The latency histograms the overview shows, when this registry holds them: the gateway's submit
 * latency, and a worker's dispatch→start and run duration where the worker shares the registry
 * (one process running both). Read in-process; label values are summed into one histogram.
 */
export const OVERVIEW_HISTOGRAMS = [
  'sluice_gateway_accept_seconds',
  'sluice_worker_dispatch_to_start_seconds',
  'sluice_worker_job_duration_seconds',
] as const;

export async function readHistograms(
  registry: Registry,
  names: readonly string[] = OVERVIEW_HISTOGRAMS,
): Promise<HistogramView[]> {
  const out: HistogramView[] = [];
  for (const name of names) {
    const metric = registry.getSingleMetric(name);
    if (!metric) continue;
    const { help, values, type } = await metric.get();
    if (String(type) !== 'histogram') continue;
    const buckets = new Map<number | null, number>();
    let count = 0;
    let sum = 0;
    for (const v of values) {
      const series = (v as { metricName?: string }).metricName ?? '';
      if (series.endsWith('_bucket')) {
        const le = v.labels.le === '+Inf' ? null : Number(v.labels.le);
        buckets.set(le, (buckets.get(le) ?? 0) + v.value);
      } else if (series.endsWith('_count')) count += v.value;
      else if (series.endsWith('_sum')) sum += v.value;
    }
    const ordered = [...buckets].sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity));
    out.push({ name, help, count, sum, buckets: ordered.map(([le, n]) => ({ le, count: n })) });
  }
  return out;
}
