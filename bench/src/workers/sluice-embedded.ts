// Sluice embedded runtime child (row 5): `createWorker` + `createEmbeddedRuntime` on the job
// database (SQLite file or PostgreSQL), product defaults (read batch, lease, poll), a no-op
// handler with one unit. A job counts once `onSettled` reports it: its terminal transition is
// committed and its queue row acknowledged.
import { openDatabase } from '@sluice/storage';
import { createEmbeddedRuntime, createWorker, type Worker } from '@sluice/worker';
import type { CreateConsumer, JobPayload } from '../adapter.js';
import { defineJobs } from '@sluice/contracts';
import {
  BENCH_KIND,
  BENCH_VERSION,
  benchHandler,
  benchJobs,
  limitedBenchHandler,
  limitedBenchJob,
  type BenchProviderLimits,
} from '../sluice/bench-job.js';
import { installSqlStats } from '../sluice/sql-stats.js';
import { closeDatabase } from '../sluice/close-database.js';
import { countSettled } from '../sluice/count-settled.js';

export interface EmbeddedChildConfig {
  url: string;
  /** PostgreSQL pool per process. */
  poolSize: number;
  /** Row 10: each job's unit calls this provider through the guard, under these limits. */
  provider?: { url: string; limits: BenchProviderLimits };
}

function parseConfig(config: Record<string, unknown>): EmbeddedChildConfig {
  const { url, poolSize, provider } = config;
  if (typeof url !== 'string' || typeof poolSize !== 'number')
    throw new Error(`bad embedded child config: ${JSON.stringify(config)}`);
  return provider
    ? { url, poolSize, provider: provider as NonNullable<EmbeddedChildConfig['provider']> }
    : { url, poolSize };
}

/** The no-op job (rows 5 and 9), or row 10's job with its limited provider call. */
function definitions(cfg: EmbeddedChildConfig, start: (job: JobPayload) => Promise<void> | void) {
  if (!cfg.provider) {
    return {
      jobs: benchJobs,
      handlers: { [BENCH_KIND]: { [BENCH_VERSION]: benchHandler(start) } },
    };
  }
  const job = limitedBenchJob(cfg.provider.limits);
  return {
    jobs: defineJobs(job),
    handlers: {
      [BENCH_KIND]: { [BENCH_VERSION]: limitedBenchHandler(job, cfg.provider.url, start) },
    },
  };
}

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parseConfig(init.config);
  const sqlStats = installSqlStats();
  const database = openDatabase({ url: cfg.url, poolSize: cfg.poolSize });
  // Open the pool's connections now, so connecting is not timed (as for graphile-worker).
  if (database.pgPool) {
    const pool = database.pgPool;
    const clients = await Promise.all(Array.from({ length: cfg.poolSize }, () => pool.connect()));
    for (const client of clients) client.release();
  } else {
    await database.db.selectFrom('jobs').select('id').limit(1).execute();
  }
  const counter = countSettled('sluice-embedded', (n) => hooks.completed(n));
  const worker: Worker = createWorker({
    ...definitions(cfg, (job) => hooks.handle(job)),
    runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx }),
    database,
    concurrency: init.concurrency,
    onSettled: counter.onSettled,
  });
  return {
    start: () => worker.start(),
    async close() {
      await worker.stop({ deadlineMs: 2_000 });
      await closeDatabase(database);
      sqlStats?.write(`embedded-${process.pid}`, counter.settled);
    },
  };
};
