// What `npm run bench` measures: the eight original rows, rows 9 (fairness) and 10 (provider
// limits), and row 11 (the durable engines users compare Sluice with), as scenarios. Each scenario names its Sluice subjects, its anchors (rows 1–3:
// BullMQ without persistence and BullMQ on an AOF everysec server; row 5: graphile-worker) and
// (where one exists) the ceiling; every participant runs in every round, interleaved, so
// background noise hits all of them alike.
import type { SubmitSpec, UploadSpec, WatchersSpec } from './adapter.js';
import type { DrainSpec } from './harness/run-drain.js';
import type { FairnessSpec } from './harness/run-fairness.js';
import type { LatencySpec } from './harness/run-latency.js';
import type { LimitsSpec } from './harness/run-limits.js';
import { DURABLE_ENGINES, durableScenarios } from './scenarios-durable.js';

export { DURABLE_ENGINES };

export type ScenarioSpec =
  | ({ kind: 'drain' } & DrainSpec)
  | ({ kind: 'latency' } & LatencySpec)
  | ({ kind: 'submit' } & SubmitSpec)
  | ({ kind: 'upload' } & UploadSpec)
  | ({ kind: 'watchers' } & WatchersSpec)
  | ({ kind: 'fairness' } & FairnessSpec)
  | ({ kind: 'limits' } & LimitsSpec);

export type Role = 'subject' | 'anchor' | 'ceiling';

export interface Scenario {
  /** Dotted id; `--only drain` selects every id starting with `drain`. */
  id: string;
  /**
   * The row number in bench/README.md (1–8; 9: fairness across tenants, 10: shared provider
   * limits).
   */
  row: number;
  title: string;
  spec: ScenarioSpec;
  subjects: readonly string[];
  /**
   * What each subject is compared with, paired per round. The first is the main anchor (the
   * ceiling is compared with it too); a later one is also compared with the first (what BullMQ's
   * AOF costs it).
   */
  anchors: readonly string[];
  ceiling?: string;
  /** Runs in the first `rounds` rounds only (row 11: fewer rounds keep the full run's time). */
  rounds?: number;
}

export interface SuiteSize {
  drainJobs: number;
  latencySeconds: number;
  /** Drain shapes (concurrency × processes) for rows 1 and 5. */
  drainShapes: readonly (readonly [number, number])[];
  embeddedShapes: readonly (readonly [number, number])[];
  /**
   * Rows 1–2: the clock stops here even if the drain is not done (see DrainSpec.maxSeconds), so a
   * subject at a few hundred jobs/s cannot take minutes per round; jobs/s counts the jobs done.
   */
  drainCapSeconds: number;
  /** Row 3: how long after the last add the backlog may drain (see LatencySpec.drainCapSeconds). */
  latencyDrainCapSeconds: number;
  /** Row 5: the clock stops here even if the drain is not done (see DrainSpec.maxSeconds). */
  embeddedCapSeconds: number;
  /** Row 6: autocannon duration per run. */
  submitSeconds: number;
  /** Row 7: bytes per upload, and the storages it runs on (the body never touches the database). */
  uploadBytes: number;
  uploadStorages: readonly ('sqlite' | 'postgres')[];
  /** Row 8: WebSocket subscriptions, and state events written (one per watched job). */
  watchers: number;
  /** Row 9: tenant B's jobs before and beside tenant A's 20,000-job backlog (1 per 100 ms). */
  fairnessIdleJobs: number;
  fairnessLoadedJobs: number;
  /** Row 10: jobs, each making one call to the limited provider (~callsPerSecond jobs/s). */
  limitsJobs: number;
  rounds: number;
  /** Row 11 on or off, its engines, its latency windows (s, also their backlog cap), its rounds. */
  durable: boolean;
  durableEngines: readonly string[];
  durableLatencySeconds: number;
  durableRounds: number;
}

export const FULL: SuiteSize = {
  drainJobs: 20_000,
  latencySeconds: 10,
  drainShapes: [
    [16, 1],
    [64, 1],
    [16, 4],
    [64, 4],
  ],
  embeddedShapes: [
    [16, 1],
    [64, 1],
    [16, 4],
  ],
  // Caps chosen so the full suite fits 20 minutes (README, "Time budget"); a system that finishes
  // first is measured over every job.
  drainCapSeconds: 6,
  latencyDrainCapSeconds: 10,
  embeddedCapSeconds: 3,
  submitSeconds: 20,
  uploadBytes: 1024 ** 3,
  uploadStorages: ['sqlite', 'postgres'],
  watchers: 1_000,
  fairnessIdleJobs: 50,
  fairnessLoadedJobs: 100,
  limitsJobs: 300,
  rounds: 5,
  durable: true,
  durableEngines: DURABLE_ENGINES,
  durableLatencySeconds: 5,
  durableRounds: 3,
};

/** For development: one scenario per row, shorter windows and caps, 3 rounds; under 3 minutes. */
export const QUICK: SuiteSize = {
  drainJobs: 5_000,
  latencySeconds: 3,
  drainShapes: [[64, 1]],
  embeddedShapes: [[64, 1]],
  drainCapSeconds: 2,
  latencyDrainCapSeconds: 3,
  embeddedCapSeconds: 2,
  submitSeconds: 2,
  uploadBytes: 256 * 1024 ** 2,
  uploadStorages: ['sqlite'],
  watchers: 1_000,
  fairnessIdleJobs: 20,
  fairnessLoadedJobs: 30,
  limitsJobs: 150,
  rounds: 3,
  durable: false,
  durableEngines: DURABLE_ENGINES,
  durableLatencySeconds: 3,
  durableRounds: 3,
};

const STREAMS = {
  subjects: ['sluice-streams'],
  anchors: ['bullmq', 'bullmq-aof'],
  ceiling: 'raw-streams',
} as const;
/**
 * The NATS JetStream runtime beside Streams where the row has one shape (c64 × 1 process): the
 * other drain shapes would add a minute and a half to the full run's 20-minute budget.
 */
const BROKERS = { ...STREAMS, subjects: ['sluice-streams', 'sluice-nats'] } as const;
const EMBEDDED = {
  subjects: ['sluice-embedded-sqlite', 'sluice-embedded-pg'],
  anchors: ['graphile'],
} as const;

const GATEWAYS = ['sluice-gateway-sqlite', 'sluice-gateway-postgres'];

/** The latency rows' worker shape; the row fixes the load, not the concurrency. */
export const LATENCY_CONCURRENCY = 64;

export function buildScenarios(size: SuiteSize): Scenario[] {
  const out: Scenario[] = [];
  const noop = { kind: 'noop' } as const;
  for (const [concurrency, processes] of size.drainShapes) {
    out.push({
      id: `drain.c${concurrency}.p${processes}`,
      row: 1,
      title:
        `drain ${size.drainJobs} no-op, c${concurrency} × ${processes} proc ` +
        `(clock capped at ${size.drainCapSeconds} s)`,
      spec: {
        kind: 'drain',
        jobs: size.drainJobs,
        concurrency,
        processes,
        handler: noop,
        maxSeconds: size.drainCapSeconds,
      },
      ...(concurrency === 64 && processes === 1 ? BROKERS : STREAMS),
    });
  }
  out.push({
    id: 'io.c64',
    row: 2,
    title:
      `${size.drainJobs} jobs awaiting 10 ms, c64 (cap 6,400/s; clock capped at ` +
      `${size.drainCapSeconds} s)`,
    spec: {
      kind: 'drain',
      jobs: size.drainJobs,
      concurrency: 64,
      processes: 1,
      handler: { kind: 'sleep', ms: 10 },
      maxSeconds: size.drainCapSeconds,
    },
    ...BROKERS,
  });
  out.push({
    id: `latency.c${LATENCY_CONCURRENCY}`,
    row: 3,
    title:
      `open loop 1,000/s × ${size.latencySeconds} s (first 1 s excluded), ` +
      `c${LATENCY_CONCURRENCY}, backlog capped at ${size.latencyDrainCapSeconds} s`,
    spec: {
      kind: 'latency',
      rate: 1_000,
      seconds: size.latencySeconds,
      warmupSeconds: 1,
      concurrency: LATENCY_CONCURRENCY,
      processes: 1,
      drainCapSeconds: size.latencyDrainCapSeconds,
    },
    ...BROKERS,
  });
  for (const [concurrency, processes] of size.embeddedShapes) {
    out.push({
      id: `embedded.c${concurrency}.p${processes}`,
      row: 5,
      title:
        `embedded drain ${size.drainJobs} no-op, c${concurrency} × ${processes} proc ` +
        `(clock capped at ${size.embeddedCapSeconds} s)`,
      spec: {
        kind: 'drain',
        jobs: size.drainJobs,
        concurrency,
        processes,
        handler: noop,
        maxSeconds: size.embeddedCapSeconds,
      },
      ...EMBEDDED,
    });
  }
  // One scenario for both storages, so each round pairs both with one run of the ceiling.
  out.push({
    id: 'submit.c50',
    row: 6,
    title: `jobs.submit, autocannon 50 conns × ${size.submitSeconds} s`,
    spec: { kind: 'submit', connections: 50, seconds: size.submitSeconds },
    subjects: GATEWAYS,
    anchors: [],
    ceiling: 'trpc-noop',
  });
  const mib = size.uploadBytes / 1024 ** 2;
  out.push({
    id: `upload.${mib >= 1024 ? `${mib / 1024}g` : `${mib}m`}`,
    row: 7,
    title:
      `${mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`} upload streamed through the gateway` +
      (size.uploadStorages.length === 1 ? ` (${size.uploadStorages[0]} only)` : ''),
    spec: { kind: 'upload', bytes: size.uploadBytes },
    subjects: size.uploadStorages.map((s) => `sluice-gateway-${s}`),
    anchors: [],
  });
  out.push({
    id: `watchers.${size.watchers}`,
    row: 8,
    title: `${size.watchers.toLocaleString('en-US')} WebSocket subscriptions, event commit → arrival`,
    spec: { kind: 'watchers', subscribers: size.watchers, events: size.watchers },
    subjects: GATEWAYS,
    anchors: [],
  });
  // Row 9: one tenant's backlog must not starve another tenant's new job. Embedded: the fair
  // claim; Streams: bounded-depth dispatch, A's backlog held in the database, the fair feeder.
  const fairness = {
    kind: 'fairness',
    backlog: 20_000,
    intervalMs: 100,
    idleJobs: size.fairnessIdleJobs,
    loadedJobs: size.fairnessLoadedJobs,
    concurrency: LATENCY_CONCURRENCY,
    drainCapSeconds: 60,
  } as const;
  const fairnessTitle =
    `tenant A enqueues 20,000 at once, tenant B 1 per 100 ms: B's dispatch→start idle ` +
    `(${size.fairnessIdleJobs} jobs) vs beside A's backlog (${size.fairnessLoadedJobs} jobs), c64`;
  out.push({
    id: 'fairness.embedded',
    row: 9,
    title: fairnessTitle,
    spec: fairness,
    subjects: EMBEDDED.subjects,
    anchors: [],
  });
  out.push({
    id: 'fairness.streams',
    row: 9,
    title: `${fairnessTitle} (Streams, state in PostgreSQL)`,
    spec: fairness,
    subjects: ['sluice-streams'],
    anchors: [],
  });
  // Row 10: three workers share one provider's limits through the job database; the provider
  // (50 ms per request) counts what arrives. 4 × 50 ms allows 80 calls/s, so the rate binds.
  out.push({
    id: 'limits.provider',
    row: 10,
    title:
      `${size.limitsJobs} jobs × 1 guarded call, provider limits maxConcurrent 4, 20 calls/s, ` +
      `provider answers in 50 ms, c16 × 3 proc`,
    spec: {
      kind: 'limits',
      jobs: size.limitsJobs,
      processes: 3,
      concurrency: 16,
      delayMs: 50,
      maxConcurrent: 4,
      callsPerSecond: 20,
      timeoutSeconds: 120,
    },
    subjects: EMBEDDED.subjects,
    anchors: [],
  });
  if (size.durable) out.push(...durableScenarios(size));
  return out;
}

/**
 * `--only a,b`: keeps scenarios whose id equals or starts with `a.` / `b.`, or whose row number is
 * given. Row 4 (`4` or `ceiling`) is the ceiling column of rows 1–3, so it selects those.
 */
export function selectScenarios(all: readonly Scenario[], only: readonly string[]): Scenario[] {
  if (only.length === 0) return [...all];
  const matches = (s: Scenario, o: string) =>
    s.id === o ||
    s.id.startsWith(`${o}.`) ||
    String(s.row) === o ||
    ((o === 'ceiling' || o === '4') && s.ceiling === 'raw-streams');
  return all.filter((s) => only.some((o) => matches(s, o)));
}

export function participants(s: Scenario): { role: Role; adapter: string }[] {
  return [
    ...s.subjects.map((adapter) => ({ role: 'subject' as const, adapter })),
    ...s.anchors.map((adapter) => ({ role: 'anchor' as const, adapter })),
    ...(s.ceiling ? [{ role: 'ceiling' as const, adapter: s.ceiling }] : []),
  ];
}
