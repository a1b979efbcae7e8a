// graphile-worker 0.17 anchor for the PostgreSQL side: its batching on (localQueue, batched
// completion), as in its documented "optimal conditions". Parent side: migrate once per database;
// before every run empty its jobs and job-queue tables (TRUNCATE) and VACUUM ANALYZE its tables,
// prefill with addJobs in batches of 1,000, then ANALYZE them again (untimed): the same treatment
// Sluice's tables get (sluice/sluice-db.ts).
import { makeWorkerUtils, runMigrations } from 'graphile-worker';
import pg from 'pg';
import type { BenchAdapter, BenchServices } from '../adapter.js';
import { monoMs } from '../harness/clock.js';
import { quietLogger, type GraphileConfig } from './graphile-config.js';

const PREFILL_BATCH = 1_000;
const LOCAL_QUEUE_SIZE = 500;
/** PostgreSQL on this machine allows 100 connections and is shared with other test runs. */
const CONNECTION_BUDGET = 40;
const SETTLE_POLL_MS = 2;
const WORKER_MODULE = new URL('../workers/graphile.ts', import.meta.url).href;

const migrated = new Set<string>();

/** graphile-worker 0.17's tables; `_private_tasks` keeps its rows (task identifiers). */
const TABLES = [
  'graphile_worker._private_jobs',
  'graphile_worker._private_job_queues',
  'graphile_worker._private_tasks',
];

async function ensureMigrated(pool: pg.Pool, url: string): Promise<void> {
  if (migrated.has(url)) return;
  await runMigrations({ pgPool: pool, logger: quietLogger });
  migrated.add(url);
}

/** Connections per worker process: graphile's "concurrency + 1", within the shared budget. */
export function graphilePoolSize(concurrency: number, processes: number): number {
  return Math.max(2, Math.min(concurrency + 1, 25, Math.floor(CONNECTION_BUDGET / processes)));
}

function createAdapter(): BenchAdapter {
  return {
    id: 'graphile',
    label: 'graphile-worker',
    needs: ['postgres'],
    packages: ['graphile-worker', 'pg'],
    queue: {
      consumerModule: WORKER_MODULE,
      async prepare(services: BenchServices, spec) {
        if (!services.pg) throw new Error('graphile needs postgres');
        const url = services.pg.url;
        const pool = new pg.Pool({ connectionString: url, max: 2 });
        // graphile-worker warns unless both handlers exist.
        pool.on('error', () => undefined);
        pool.on('connect', (client) => client.on('error', () => undefined));
        try {
          await ensureMigrated(pool, url);
          await pool.query(
            'TRUNCATE graphile_worker._private_jobs, graphile_worker._private_job_queues',
          );
          await pool.query(`VACUUM ANALYZE ${TABLES.join(', ')}`);
          const utils = await makeWorkerUtils({ pgPool: pool, logger: quietLogger });
          try {
            for (let from = 0; from < spec.jobs; from += PREFILL_BATCH) {
              const size = Math.min(PREFILL_BATCH, spec.jobs - from);
              await utils.addJobs(
                Array.from({ length: size }, (_, k) => ({
                  identifier: 'noop',
                  payload: { i: from + k, t: 0 },
                })),
              );
            }
          } finally {
            await utils.release();
          }
          await pool.query(`ANALYZE ${TABLES.join(', ')}`);
        } catch (error) {
          await pool.end();
          throw error;
        }
        const child: GraphileConfig = {
          url,
          poolSize: graphilePoolSize(spec.concurrency, spec.processes),
          localQueueSize: LOCAL_QUEUE_SIZE,
        };
        return {
          child: { ...child },
          // `job:complete` fires before the batched completion commits: the run ends when the
          // jobs table is empty.
          async settle() {
            for (;;) {
              const result = await pool.query<{ n: string }>(
                'SELECT count(*) AS n FROM graphile_worker._private_jobs',
              );
              if (result.rows[0]?.n === '0') return monoMs();
              await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
            }
          },
          cleanup: () => pool.end(),
        };
      },
    },
  };
}

export const graphileAdapter = createAdapter();
