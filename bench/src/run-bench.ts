// The whole suite as a function (main.ts is its CLI, smoke.test.ts calls it with tiny sizes):
// select scenarios, start only the services a runnable participant needs, run interleaved rounds,
// summarise, and build the JSON record and the markdown table.
import type { BenchAdapter, Need } from './adapter.js';
import { ADAPTERS, adapterMap } from './adapters.js';
import { createChildPool } from './harness/child-pool.js';
import { busyFraction, CLK_TCK, readMachineTicks } from './harness/cpu.js';
import {
  describeMachine,
  load1,
  packageVersions,
  type MachineDescription,
} from './harness/machine.js';
import { renderMarkdown } from './harness/report.js';
import { durableWorkTables } from './harness/report-durable.js';
import { runRounds, unsupported, type RoundRecord } from './harness/rounds.js';
import { startServices } from './harness/services.js';
import { summarizeScenario, type ScenarioSummary } from './harness/summarize.js';
import { renderTimeBudget, timeBudget, type TimeBudget } from './harness/time-budget.js';
import {
  buildScenarios,
  participants,
  selectScenarios,
  type Scenario,
  type SuiteSize,
} from './scenarios.js';

export interface RunBenchOptions {
  mode: 'quick' | 'full' | 'smoke';
  size: SuiteSize;
  only: readonly string[];
  adapters?: readonly BenchAdapter[];
  log(line: string): void;
}

export interface BenchResult {
  /** 2: scenarios carry `anchors` (was `anchor`), runs carry `detail.cost` and per-job metrics. */
  schema: 2;
  mode: RunBenchOptions['mode'];
  startedAt: string;
  finishedAt: string;
  wallSeconds: number;
  options: { only: readonly string[]; size: SuiteSize };
  machine: MachineDescription & { load1Before: number; load1After: number; machineBusy: number };
  versions: {
    node: string;
    redisServer?: string;
    postgres?: string;
    natsServer?: string;
    packages: Record<string, string>;
  };
  /** The private services this run used (all stopped or dropped by the time it returns). */
  services: { redisPid?: number; redisAofPid?: number; natsPid?: number; pgDatabase?: string };
  scenarios: Scenario[];
  summary: ScenarioSummary[];
  /** Where the wall time went, per scenario and participant (also printed on stderr). */
  timeBudget: TimeBudget;
  rounds: RoundRecord[];
}

const DRAIN_TIMEOUT_MS = 180_000;
const HARNESS_PACKAGES = ['tsx', 'typescript'];

export async function runBench(
  opts: RunBenchOptions,
): Promise<{ result: BenchResult; markdown: string }> {
  const started = new Date();
  const ticksBefore = readMachineTicks();
  const load1Before = load1();
  const adapters = adapterMap(opts.adapters ?? ADAPTERS);
  const scenarios = selectScenarios(buildScenarios(opts.size), opts.only);
  if (scenarios.length === 0) throw new Error(`--only ${opts.only.join(',')} selects no scenario`);
  const whyNot = (scenario: Scenario) => (adapter: BenchAdapter) =>
    unsupported(adapter, scenario.spec);

  const needs = new Set<Need>();
  const packages = new Set(HARNESS_PACKAGES);
  for (const scenario of scenarios) {
    for (const { adapter: id } of participants(scenario)) {
      const adapter = adapters.get(id);
      if (!adapter) continue;
      for (const p of adapter.packages) packages.add(p);
      if (!unsupported(adapter, scenario.spec)) for (const need of adapter.needs) needs.add(need);
    }
  }

  const suite = await startServices(needs);
  const pool = createChildPool();
  let records: RoundRecord[];
  try {
    records = await runRounds({
      scenarios,
      rounds: opts.size.rounds,
      adapters,
      services: suite.services,
      pool,
      reset: suite.reset,
      log: opts.log,
      drainTimeoutMs: DRAIN_TIMEOUT_MS,
    });
  } finally {
    await Promise.allSettled([pool.close(), ...[...adapters.values()].map((a) => a.dispose?.())]);
    await suite.stop();
  }

  const summary = scenarios.map((s) => summarizeScenario(s, records, adapters, whyNot(s)));
  const finished = new Date();
  const wallSeconds = (finished.getTime() - started.getTime()) / 1000;
  const budget = timeBudget(records, wallSeconds, opts.size.rounds);
  opts.log(renderTimeBudget(budget));
  const machine = {
    ...describeMachine(CLK_TCK),
    load1Before,
    load1After: load1(),
    machineBusy: busyFraction(ticksBefore, readMachineTicks()),
  };
  const versions = {
    node: process.version,
    ...suite.versions,
    packages: packageVersions(packages),
  };
  const result: BenchResult = {
    schema: 2,
    mode: opts.mode,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    wallSeconds,
    options: { only: opts.only, size: opts.size },
    machine,
    versions,
    services: {
      ...(suite.services.redis ? { redisPid: suite.services.redis.pid } : {}),
      ...(suite.services.redisAof ? { redisAofPid: suite.services.redisAof.pid } : {}),
      ...(suite.services.nats ? { natsPid: suite.services.nats.pid } : {}),
      ...(suite.services.pg ? { pgDatabase: suite.services.pg.name } : {}),
    },
    scenarios,
    summary,
    timeBudget: budget,
    rounds: records,
  };
  const pkgLine = Object.entries(versions.packages)
    .filter(([, v]) => v !== 'not installed')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const failures = records
    .filter((r) => !r.ok)
    .map((r) => `round ${r.round} ${r.scenario} ${r.adapter}: ${r.error ?? 'failed'}`);
  const markdown = renderMarkdown(
    {
      mode: opts.mode,
      rounds: opts.size.rounds,
      machineLine: `${machine.cpuModel}, ${machine.cores} cores, ${machine.memGiB} GiB, ${machine.os}, Node ${machine.node}`,
      softwareLine: `redis-server ${versions.redisServer ?? '—'}, PostgreSQL ${versions.postgres ?? '—'}${versions.natsServer ? `, nats-server ${versions.natsServer}` : ''}; ${pkgLine}`,
      loadLine:
        `load1 ${machine.load1Before.toFixed(2)} → ${machine.load1After.toFixed(2)}, ` +
        `machine busy ${(machine.machineBusy * 100).toFixed(0)} % (all tenants)`,
      wallSeconds,
    },
    scenarios,
    summary,
    adapters,
    failures,
    durableWorkTables(records, new Map(scenarios.map((s) => [s.id, s.row])), adapters),
  );
  return { result, markdown };
}
