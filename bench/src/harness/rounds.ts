// Interleaved rounds: round 1 runs every scenario's participants (subject, anchor, ceiling) one
// after the other, then round 2 does the same, … so a noisy minute hurts all sides of a comparison
// alike and each round yields one paired ratio.
import type { BenchAdapter, BenchServices } from '../adapter.js';
import { participants, type Role, type Scenario, type ScenarioSpec } from '../scenarios.js';
import { busyFraction, readMachineTicks } from './cpu.js';
import { load1 } from './machine.js';
import { runDrain } from './run-drain.js';
import { runFairness } from './run-fairness.js';
import { runLimits } from './run-limits.js';
import { runLatency } from './run-latency.js';
import type { ChildPool } from './child-pool.js';
import type { Phases, RunOutcome } from './run-shared.js';

export interface RoundRecord {
  round: number;
  scenario: string;
  adapter: string;
  role: Role;
  ok: boolean;
  error?: string;
  metrics: Record<string, number>;
  detail: Record<string, unknown>;
  startedAt: string;
  wallMs: number;
  /** Where wallMs went (drain and latency runs; see Phases), the rest being harness overhead. */
  phases?: Phases;
  load1Before: number;
  /** Whole-machine busy fraction (all cores, every tenant) during the run. */
  machineBusy: number;
}

export interface RoundsOptions {
  scenarios: readonly Scenario[];
  rounds: number;
  adapters: ReadonlyMap<string, BenchAdapter>;
  services: BenchServices;
  /** Consumer/producer processes shared by every run (see child-pool.ts). */
  pool: ChildPool;
  reset(): Promise<void>;
  log(line: string): void;
  /** Upper bound for one drain. */
  drainTimeoutMs: number;
}

/** Why an adapter cannot run a spec, or undefined when it can. */
export function unsupported(adapter: BenchAdapter, spec: ScenarioSpec): string | undefined {
  if (adapter.unavailable) return adapter.unavailable;
  switch (spec.kind) {
    case 'drain':
      return adapter.queue ? undefined : 'no queue adapter';
    case 'latency':
      return adapter.queue?.producerModule ? undefined : 'no latency producer';
    case 'submit':
      return adapter.gateway?.submit ? undefined : 'no submit adapter';
    case 'upload':
      return adapter.gateway?.upload ? undefined : 'no upload adapter';
    case 'watchers':
      return adapter.gateway?.watchers ? undefined : 'no watchers adapter';
    case 'fairness':
      return adapter.queue?.tenantFeed ? undefined : 'no tenant feed';
    case 'limits':
      return adapter.queue ? undefined : 'no queue adapter';
  }
}

function asOutcome(result: { detail?: Record<string, unknown> }): RunOutcome {
  const { detail, ...metrics } = result;
  return { metrics: metrics as Record<string, number>, detail: detail ?? {} };
}

function missing(adapter: BenchAdapter, what: string): never {
  throw new Error(`${adapter.id} has no ${what} adapter`);
}

export async function runSpec(
  adapter: BenchAdapter,
  services: BenchServices,
  spec: ScenarioSpec,
  ctx: { pool: ChildPool; drainTimeoutMs: number },
): Promise<RunOutcome> {
  const gateway = adapter.gateway ?? {};
  switch (spec.kind) {
    case 'drain':
      return runDrain(adapter, services, spec, { pool: ctx.pool, timeoutMs: ctx.drainTimeoutMs });
    case 'latency':
      return runLatency(adapter, services, spec, ctx);
    case 'submit':
      return asOutcome(await (gateway.submit ?? missing(adapter, 'submit'))(services, spec));
    case 'upload':
      return asOutcome(await (gateway.upload ?? missing(adapter, 'upload'))(services, spec));
    case 'watchers':
      return asOutcome(await (gateway.watchers ?? missing(adapter, 'watchers'))(services, spec));
    case 'fairness':
      return runFairness(adapter, services, spec, ctx);
    case 'limits':
      return runLimits(adapter, services, spec, ctx);
  }
}

function brief(metrics: Record<string, number>): string {
  const keys = [
    'jobsPerSec',
    'idleP50',
    'idleP99',
    'p50',
    'p99',
    'cpuMsPer1k',
    'requestsPerSec',
    'p50Ms',
    'p99Ms',
    'errors',
    'mibPerSec',
    'peakRssGrowthMiB',
    'maxInFlight',
    'busiestSecond',
    'rateUse',
  ];
  return keys
    .filter((k) => metrics[k] !== undefined)
    .map((k) => `${k}=${(metrics[k] as number).toFixed(/^p\d/.test(k) ? 2 : 0)}`)
    .join(' ');
}

export async function runRounds(opts: RoundsOptions): Promise<RoundRecord[]> {
  const records: RoundRecord[] = [];
  for (let round = 1; round <= opts.rounds; round++) {
    for (const scenario of opts.scenarios) {
      if (scenario.rounds !== undefined && round > scenario.rounds) continue;
      for (const { role, adapter: id } of participants(scenario)) {
        const adapter = opts.adapters.get(id);
        if (!adapter || unsupported(adapter, scenario.spec)) continue;
        await opts.reset();
        const startedAt = new Date();
        const before = readMachineTicks();
        const loadBefore = load1();
        let outcome: RunOutcome | undefined;
        let error: string | undefined;
        try {
          outcome = await runSpec(adapter, opts.services, scenario.spec, opts);
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
        }
        const record: RoundRecord = {
          round,
          scenario: scenario.id,
          adapter: id,
          role,
          ok: outcome !== undefined,
          ...(error ? { error } : {}),
          metrics: outcome?.metrics ?? {},
          detail: outcome?.detail ?? {},
          startedAt: startedAt.toISOString(),
          wallMs: Date.now() - startedAt.getTime(),
          ...(outcome?.phases ? { phases: outcome.phases } : {}),
          load1Before: loadBefore,
          machineBusy: busyFraction(before, readMachineTicks()),
        };
        records.push(record);
        opts.log(
          `round ${round}/${opts.rounds} ${scenario.id} ${id}: ` +
            (error ? `FAILED ${error}` : brief(record.metrics)) +
            (record.detail.capped === true ? ' [capped]' : '') +
            ` (${(record.wallMs / 1000).toFixed(1)} s wall, load1 ${loadBefore.toFixed(1)}, ` +
            `busy ${(record.machineBusy * 100).toFixed(0)}%)`,
        );
      }
    }
  }
  return records;
}
