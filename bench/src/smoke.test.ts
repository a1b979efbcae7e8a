// Checks that the harness works end to end, not how fast anything is: a tiny drain and a short
// latency run against both BullMQ anchors (no persistence; AOF everysec) and raw Streams, the same
// with Sluice Streams and with Sluice NATS (their end states checked),
// a tiny embedded drain (graphile-worker and Sluice on
// SQLite and PostgreSQL), and the gateway rows at toy sizes must produce a well-formed result, and
// leave no process or database behind.
import pg from 'pg';
import { pgAdminUrl } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import type { BenchAdapter } from './adapter.js';
import { ADAPTERS } from './adapters.js';
import { runBench } from './run-bench.js';
import { DURABLE_ENGINES, type SuiteSize } from './scenarios.js';

// Only the harness is under test: the children load the Sluice packages' sources (as the test
// itself does), so `npm test` needs no build on a fresh clone; `npm run bench` runs built dist.
process.env.BENCH_SOURCE ??= '1';

/** Sizes small enough for CI; only the harness is under test. */
function tiny(overrides: Partial<SuiteSize>): SuiteSize {
  return {
    drainJobs: 200,
    latencySeconds: 2,
    drainShapes: [],
    embeddedShapes: [],
    drainCapSeconds: 10,
    latencyDrainCapSeconds: 10,
    embeddedCapSeconds: 3,
    submitSeconds: 1,
    uploadBytes: 8 * 1024 * 1024,
    uploadStorages: ['sqlite', 'postgres'],
    watchers: 20,
    fairnessIdleJobs: 3,
    fairnessLoadedJobs: 3,
    limitsJobs: 10,
    rounds: 1,
    durable: false,
    durableEngines: DURABLE_ENGINES,
    durableLatencySeconds: 2,
    durableRounds: 1,
    ...overrides,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The registry with every adapter but `keep` marked unavailable (the report shows `n/a (why)`). */
function only(keep: readonly string[], why: string): BenchAdapter[] {
  return ADAPTERS.map((a) => (keep.includes(a.id) ? a : { ...a, unavailable: why }));
}

// Timeouts are generous: the smoke checks the result's shape, not speed, and under `npm test` it
// shares two cores with every other package's suite (turbo runs them side by side).
describe('bench harness smoke', () => {
  it(
    'produces a well-formed result for both BullMQ anchors and raw Streams',
    { timeout: 240_000 },
    async () => {
      const { result, markdown } = await runBench({
        mode: 'smoke',
        size: tiny({ drainJobs: 300, drainShapes: [[16, 1]] }),
        only: ['drain', 'latency'],
        adapters: only(['bullmq', 'bullmq-aof', 'raw-streams'], 'not in this test'),
        log: () => undefined,
      });

      expect(result.schema).toBe(2);
      expect(result.machine.cores).toBeGreaterThan(0);
      expect(result.versions.redisServer).toMatch(/^\d+\.\d+/);
      expect(result.versions.packages.bullmq).toMatch(/^\d+\.\d+\.\d+$/);
      expect(result.scenarios.map((s) => s.id)).toEqual(['drain.c16.p1', 'latency.c64']);

      // Sluice Streams is left out here: only the two anchors ran, once per scenario, and every run succeeded.
      const ran = result.rounds.map((r) => `${r.scenario}/${r.adapter}/${r.ok}`).sort();
      expect(ran).toEqual([
        'drain.c16.p1/bullmq-aof/true',
        'drain.c16.p1/bullmq/true',
        'drain.c16.p1/raw-streams/true',
        'latency.c64/bullmq-aof/true',
        'latency.c64/bullmq/true',
        'latency.c64/raw-streams/true',
      ]);
      // The AOF anchor ran on its own redis-server, and its CPU was counted there.
      expect(result.services.redisAofPid).toBeGreaterThan(0);
      expect(result.services.redisAofPid).not.toBe(result.services.redisPid);
      const aofDrain = result.rounds.find(
        (r) => r.scenario === 'drain.c16.p1' && r.adapter === 'bullmq-aof',
      );
      expect((aofDrain?.detail.cpuMs as { redis: number }).redis).toBeGreaterThan(0);
      for (const r of result.rounds) {
        const keys = r.scenario.startsWith('drain')
          ? ['jobsPerSec', 'cpuMsPer1k']
          : ['p50', 'p99', 'max'];
        for (const key of keys)
          expect(Number.isFinite(r.metrics[key]), `${r.adapter} ${key}`).toBe(true);
      }
      // Pooled children: the latency run reuses the drain's consumer process, forks only its producer.
      const latencyRun = result.rounds.find(
        (r) => r.scenario === 'latency.c64' && r.adapter === 'bullmq',
      );
      expect(latencyRun?.detail.forkedChildren).toBe(1);
      expect(latencyRun?.detail.workerPids).toEqual(
        result.rounds.find((r) => r.scenario === 'drain.c16.p1' && r.adapter === 'bullmq')?.detail
          .workerPids,
      );
      expect(result.timeBudget.lines.map((l) => `${l.scenario}/${l.adapter}`)).toContain(
        'drain.c16.p1/bullmq',
      );
      expect(latencyRun?.phases?.measure).toBeGreaterThan(0);
      const drain = result.summary.find((s) => s.scenario === 'drain.c16.p1');
      const compared = (kind: string, subject: string, reference: string) =>
        drain?.comparisons.some(
          (c) =>
            c.kind === kind &&
            c.subject === subject &&
            c.reference === reference &&
            c.metric === 'jobsPerSec',
        );
      expect(compared('ceiling-vs-anchor', 'raw-streams', 'bullmq')).toBe(true);
      expect(compared('ceiling-vs-anchor', 'raw-streams', 'bullmq-aof')).toBe(true);
      expect(compared('anchor-vs-anchor', 'bullmq-aof', 'bullmq')).toBe(true);
      expect(drain?.participants.find((p) => p.adapter === 'sluice-streams')?.unavailable).toBe(
        'not in this test',
      );
      expect(markdown).toContain('n/a (not in this test)');
      expect(markdown).toContain(
        '| 1 | drain 300 no-op, c16 × 1 proc (clock capped at 10 s) | jobs/s |',
      );
      // The second anchor's line follows the first's for every metric.
      expect(markdown).toMatch(/\| 1 \| \| \| \| BullMQ \(AOF everysec\) \| [\d,]+ \|/);
      expect(markdown).toContain('| BullMQ (AOF everysec) vs BullMQ |');

      // Nothing left running: worker children, redis-server.
      const pids = result.rounds.flatMap(
        (r) => (r.detail.workerPids as number[] | undefined) ?? [],
      );
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of [
        ...pids,
        result.services.redisPid ?? -1,
        result.services.redisAofPid ?? -1,
      ])
        expect(alive(pid)).toBe(false);
      expect(result.services.pgDatabase).toBeUndefined();
    },
  );

  it(
    'drains and measures latency with Sluice Streams, every job succeeded and acknowledged',
    { timeout: 240_000 },
    async () => {
      const { result } = await runBench({
        mode: 'smoke',
        size: tiny({ drainJobs: 200, drainShapes: [[16, 1]] }),
        only: ['drain', 'latency'],
        adapters: only(['sluice-streams'], 'not in this test'),
        log: () => undefined,
      });
      expect(result.rounds.map((r) => [r.scenario, r.adapter, r.ok, r.error])).toEqual([
        ['drain.c16.p1', 'sluice-streams', true, undefined],
        ['latency.c64', 'sluice-streams', true, undefined],
      ]);
      const [drain, latency] = result.rounds;
      // The end-state check: all jobs `succeeded` in PostgreSQL, nothing pending in the group.
      expect(drain?.detail.verify).toMatchObject({ ok: true, succeeded: 200, pending: 0 });
      // A loaded machine can cap the latency run's backlog: then the check covers what started
      // (ok: every row there, the reported completions succeeded, the rest queued or running).
      const verify = latency?.detail.verify as { ok: boolean; capped?: boolean; succeeded: number };
      expect(verify).toMatchObject({ ok: true, pending: 0 });
      if (verify.capped) expect(verify.succeeded).toBeGreaterThan(0);
      else expect(verify.succeeded).toBe(2000);
      for (const key of ['jobsPerSec', 'cpuMsPer1k', 'cpuPostgresMsPer1k', 'cpuRedisMsPer1k'])
        expect(Number.isFinite(drain?.metrics[key]), key).toBe(true);
      // Per-job cost: every job needs at least its terminal write, so each figure is above zero;
      // the counts behind them are kept, for all 200 jobs the workers completed.
      for (const r of [drain, latency])
        for (const key of [
          'statementsPerJob',
          'roundTripsPerJob',
          'commitsPerJob',
          'rowWritesPerJob',
          'walBytesPerJob',
        ])
          expect(r?.metrics[key], `${r?.scenario} ${key}`).toBeGreaterThan(0);
      expect(drain?.detail.cost).toMatchObject({ jobs: 200 });
      // Row 3's accept path is counted apart, in the producer.
      expect(latency?.metrics.producerStatementsPerJob).toBeGreaterThan(0);
      expect(drain?.metrics.cpuPostgresMsPer1k).toBeGreaterThan(0);
      for (const key of ['p50', 'p99', 'acceptToStartP50', 'commitToSubscriberP50']) {
        expect(Number.isFinite(latency?.metrics[key]), key).toBe(true);
        expect(latency?.metrics[key], key).toBeGreaterThan(0);
      }
      // Accept → start contains dispatch → start (the row is written before the XADD).
      expect(latency?.metrics.acceptToStartP50).toBeGreaterThan(latency?.metrics.p50 ?? Infinity);
      const pids = result.rounds.flatMap(
        (r) => (r.detail.workerPids as number[] | undefined) ?? [],
      );
      for (const pid of [...pids, result.services.redisPid ?? -1]) expect(alive(pid)).toBe(false);
    },
  );

  it(
    'drains and measures latency with Sluice NATS, every job succeeded and acknowledged',
    { timeout: 240_000 },
    async () => {
      const { result, markdown } = await runBench({
        mode: 'smoke',
        // NATS runs beside Streams in the c64 drain only (scenarios.ts).
        size: tiny({ drainJobs: 200, drainShapes: [[64, 1]] }),
        only: ['drain', 'latency'],
        adapters: only(['sluice-nats'], 'not in this test'),
        log: () => undefined,
      });
      expect(result.rounds.map((r) => [r.scenario, r.adapter, r.ok, r.error])).toEqual([
        ['drain.c64.p1', 'sluice-nats', true, undefined],
        ['latency.c64', 'sluice-nats', true, undefined],
      ]);
      const [drain, latency] = result.rounds;
      // The end-state check: all jobs `succeeded` in PostgreSQL, nothing left in the work queue.
      expect(drain?.detail.verify).toMatchObject({ ok: true, succeeded: 200, pending: 0 });
      const verify = latency?.detail.verify as { ok: boolean; capped?: boolean; succeeded: number };
      expect(verify).toMatchObject({ ok: true, pending: 0 });
      if (verify.capped) expect(verify.succeeded).toBeGreaterThan(0);
      else expect(verify.succeeded).toBe(2000);
      // nats-server is the engine column: its CPU is counted apart from the workers'.
      for (const key of ['jobsPerSec', 'cpuMsPer1k', 'cpuPostgresMsPer1k', 'cpuEngineMsPer1k'])
        expect(Number.isFinite(drain?.metrics[key]), key).toBe(true);
      expect(drain?.metrics.commitsPerJob).toBeGreaterThan(0);
      // Dispatch → start runs from the server's stamp on the stored message; accept → start
      // contains it (the row is written before the publish).
      for (const key of ['p50', 'p99', 'acceptToStartP50']) {
        expect(Number.isFinite(latency?.metrics[key]), key).toBe(true);
        expect(latency?.metrics[key], key).toBeGreaterThan(0);
      }
      expect(latency?.metrics.acceptToStartP50).toBeGreaterThan(latency?.metrics.p50 ?? Infinity);
      expect(result.versions.natsServer).toMatch(/^\d+\.\d+/);
      expect(markdown).toContain('Sluice NATS JetStream');
      const pids = result.rounds.flatMap(
        (r) => (r.detail.workerPids as number[] | undefined) ?? [],
      );
      for (const pid of [...pids, result.services.natsPid ?? -1]) expect(alive(pid)).toBe(false);
    },
  );

  it(
    'drains with Sluice embedded and graphile-worker, then drops the database',
    { timeout: 240_000 },
    async () => {
      const { result } = await runBench({
        mode: 'smoke',
        size: tiny({ embeddedShapes: [[16, 1]] }),
        only: ['embedded'],
        log: () => undefined,
      });
      expect(result.rounds.map((r) => [r.adapter, r.ok, r.error])).toEqual([
        ['sluice-embedded-sqlite', true, undefined],
        ['sluice-embedded-pg', true, undefined],
        ['graphile', true, undefined],
      ]);
      for (const r of result.rounds) {
        expect(Number.isFinite(r.metrics.jobsPerSec), r.adapter).toBe(true);
        expect(r.detail.completed, r.adapter).toBeGreaterThan(0);
        // Every worker child counts the statements it sends, on either database.
        expect(r.metrics.statementsPerJob, r.adapter).toBeGreaterThan(0);
      }
      const [sqlite, postgres, graphile] = result.rounds;
      // The database-side figures belong to the Sluice PostgreSQL run only: SQLite has no
      // pg_stat_database, and graphile-worker's parent polls its table while it settles.
      expect(postgres?.metrics.commitsPerJob).toBeGreaterThan(0);
      expect(postgres?.metrics.rowWritesPerJob).toBeGreaterThan(0);
      expect(sqlite?.metrics.commitsPerJob).toBeUndefined();
      expect(sqlite?.metrics.roundTripsPerJob).toBeUndefined();
      expect(graphile?.metrics.commitsPerJob).toBeUndefined();
      const pids = result.rounds.flatMap(
        (r) => (r.detail.workerPids as number[] | undefined) ?? [],
      );
      for (const pid of pids) expect(alive(pid)).toBe(false);
      const name = result.services.pgDatabase;
      expect(name).toMatch(/^sluice_bench_/);
      const client = new pg.Client({ connectionString: pgAdminUrl() });
      await client.connect();
      try {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        expect(found.rowCount).toBe(0);
      } finally {
        await client.end();
      }
    },
  );

  it(
    'runs the gateway rows (submit + ceiling, upload, watchers)',
    { timeout: 240_000 },
    async () => {
      const { result, markdown } = await runBench({
        mode: 'smoke',
        size: tiny({}),
        only: ['submit', 'upload', 'watchers'],
        log: () => undefined,
      });
      const ran = result.rounds.map((r) => `${r.scenario}/${r.adapter}/${r.ok}/${r.error ?? ''}`);
      expect(ran).toEqual([
        'submit.c50/sluice-gateway-sqlite/true/',
        'submit.c50/sluice-gateway-postgres/true/',
        'submit.c50/trpc-noop/true/',
        'upload.8m/sluice-gateway-sqlite/true/',
        'upload.8m/sluice-gateway-postgres/true/',
        'watchers.20/sluice-gateway-sqlite/true/',
        'watchers.20/sluice-gateway-postgres/true/',
      ]);
      const keys: Record<string, string[]> = {
        submit: ['requestsPerSec', 'p50Ms', 'p99Ms', 'errors'],
        upload: ['mibPerSec', 'peakRssGrowthMiB'],
        watchers: ['p50Ms', 'p99Ms', 'samples'],
      };
      for (const r of result.rounds) {
        for (const key of keys[r.scenario.split('.')[0] as string] ?? [])
          expect(Number.isFinite(r.metrics[key]), `${r.scenario} ${r.adapter} ${key}`).toBe(true);
        expect(alive(r.detail.gatewayPid as number), `${r.adapter} gateway`).toBe(false);
      }
      const watchers = result.rounds.filter((r) => r.scenario.startsWith('watchers'));
      for (const r of watchers) expect(r.metrics.samples).toBe(20);
      expect(markdown).toContain(
        '| 6 | jobs.submit, autocannon 50 conns × 1 s — Sluice gateway (SQLite) | req/s |',
      );
    },
  );
});
