// Row 11's participants work end to end, not how fast they are: each durable engine drains a few
// jobs twice (two rounds: a fresh queue and a relaunched worker in the same pooled process, the
// second run's end-state check proves the first run's rows were emptied) and serves a short open
// loop, and every run reports the fields the report prints. Restate's test is skipped, with its
// reason, when its server binary is not installed for this platform.
import { describe, expect, it } from 'vitest';
import type { BenchAdapter } from './adapter.js';
import { ADAPTERS } from './adapters.js';
import { restateAdapter } from './durable/restate.js';
import type { RoundRecord } from './harness/rounds.js';
import { runBench } from './run-bench.js';
import { DURABLE_ENGINES, QUICK, type SuiteSize } from './scenarios.js';

const JOBS = 150;

function size(engines: readonly string[]): SuiteSize {
  return {
    ...QUICK,
    drainJobs: JOBS,
    drainCapSeconds: 60,
    rounds: 2,
    durable: true,
    durableEngines: engines,
    durableLatencySeconds: 2,
    durableRounds: 2,
  };
}

/** Only `keep` runs; the rest of the registry reports itself unavailable. */
function only(keep: readonly string[]): BenchAdapter[] {
  return ADAPTERS.map((a) => (keep.includes(a.id) ? a : { ...a, unavailable: 'not in this test' }));
}

async function run(engines: readonly string[]): Promise<{ rounds: RoundRecord[]; md: string }> {
  const { result, markdown } = await runBench({
    mode: 'smoke',
    size: size(engines),
    // Both in both rounds: the second round reuses the pooled processes with a fresh queue.
    only: ['durable.drain.c64', 'durable.latency.500'],
    adapters: only(engines),
    log: () => undefined,
  });
  return { rounds: result.rounds, md: markdown };
}

function drains(rounds: readonly RoundRecord[], engine: string): RoundRecord[] {
  return rounds.filter((r) => r.adapter === engine && r.scenario === 'durable.drain.c64');
}

function expectDrained(record: RoundRecord | undefined, engine: string): void {
  expect(record?.error, engine).toBeUndefined();
  expect(record?.ok, engine).toBe(true);
  // Every job done and recorded by the engine itself (its own state, read after the run).
  expect(record?.detail.verify, engine).toMatchObject({ ok: true, capped: false, jobs: JOBS });
  expect(record?.detail.completed, engine).toBe(JOBS);
  for (const key of ['jobsPerSec', 'cpuMsPer1k', 'cpuWorkersMsPer1k'])
    expect(Number.isFinite(record?.metrics[key]), `${engine} ${key}`).toBe(true);
}

function expectLatency(rounds: readonly RoundRecord[], engine: string): void {
  const record = rounds.find((r) => r.adapter === engine && r.scenario === 'durable.latency.500');
  expect(record?.error, engine).toBeUndefined();
  for (const key of ['p50', 'p99', 'max'])
    expect(record?.metrics[key], `${engine} ${key}`).toBeGreaterThan(0);
}

describe('row 11: the durable engines', () => {
  it(
    'pg-boss, DBOS and Absurd drain on fresh tables every round, serve an open loop, and report ' +
      'their statements, commits, row writes, WAL and tables per job',
    { timeout: 420_000 },
    async () => {
      const engines = DURABLE_ENGINES.filter((e) => e !== 'restate');
      const { rounds, md } = await run(engines);
      const schemas: Record<string, string> = {
        pgboss: 'pgboss.',
        dbos: 'dbos.',
        absurd: 'absurd.',
      };
      for (const engine of engines) {
        const [first, second] = drains(rounds, engine);
        expectDrained(first, engine);
        expectDrained(second, engine);
        for (const key of [
          'statementsPerJob',
          'commitsPerJob',
          'rowWritesPerJob',
          'walBytesPerJob',
        ])
          expect(second?.metrics[key], `${engine} ${key}`).toBeGreaterThan(0);
        expect(second?.metrics.cpuPostgresMsPer1k, engine).toBeGreaterThan(0);
        // The rows it wrote are its own schema's, table by table.
        const tables = (second?.detail.cost as { database: { tablesPerJob: object } }).database
          .tablesPerJob;
        expect(Object.keys(tables).length, engine).toBeGreaterThan(0);
        for (const table of Object.keys(tables))
          expect(table.startsWith(schemas[engine] as string), `${engine} ${table}`).toBe(true);
        expectLatency(rounds, engine);
      }
      expect(md).toContain('### Row 11: what each system keeps durable per job');
      expect(md).toContain('| pg-boss | PostgreSQL: one job row');
      expect(md).toMatch(/\| durable\.drain\.c64 \| Absurd \| absurd\.c_bench: 1 ins/);
    },
  );

  it(
    'Restate drains through its own server, whose CPU and storage writes are reported apart',
    { timeout: 300_000 },
    async (t) => {
      if (restateAdapter.unavailable) return t.skip(restateAdapter.unavailable);
      const { rounds } = await run(['restate']);
      const [first, second] = drains(rounds, 'restate');
      expectDrained(first, 'restate');
      expectDrained(second, 'restate');
      expect(second?.metrics.cpuEngineMsPer1k).toBeGreaterThan(0);
      expect(second?.metrics.engineWriteBytesPerJob).toBeGreaterThan(0);
      // Whether the server's release check could be kept off the network is recorded.
      expect(typeof (second?.detail.verify as { dnsIsolated?: unknown }).dnsIsolated).toBe(
        'boolean',
      );
      expectLatency(rounds, 'restate');
    },
  );
});
