// pg-boss 12 (PostgreSQL job queue), parent side. Its schema `pgboss` is migrated once per
// database with pg-boss's own `start()`, and the queue `bench` created with `notify: true` (the
// workers enable LISTEN/NOTIFY, pg-boss's documented low-latency delivery). Before every run the
// job tables are emptied and vacuumed (pg-engine.ts), N jobs inserted with pg-boss's bulk
// `insert()` in batches of 1,000 (the same rows `send()` writes, one statement per batch), then
// analyzed. A job is done when pg-boss marks it `completed` (its row is kept, as pg-boss keeps
// completed jobs until maintenance deletes them); `completed_on` dates the last one.
import type { PgBoss } from 'pg-boss';
import type { BenchAdapter, BenchServices, PrepareSpec, PreparedRun } from '../adapter.js';
import { engineDatabase } from './engine-db.js';
import {
  analyzeTables,
  checkStates,
  countStates,
  emptyTables,
  PARENT_APPLICATION_NAME,
  schemaTables,
  settleByTimestamp,
  withParentPool,
  type EngineDatabase,
} from './pg-engine.js';
import {
  PGBOSS_QUEUE,
  PGBOSS_SCHEMA,
  pgBossShape,
  type PgBossChildConfig,
} from './pgboss-config.js';

const WORKER_MODULE = new URL('../workers/pgboss.ts', import.meta.url).href;
const PREFILL_BATCH = 1_000;
const POOL_SIZE = 10;
/** Emptied before every run; the queue definition, version and schedules are kept. */
const RUN_TABLES = ['job', 'job_dependency', 'queue_stats', 'warning', 'instance'].map(
  (t) => `${PGBOSS_SCHEMA}.${t}`,
);
const JOB = `${PGBOSS_SCHEMA}.job`;

const migrated = new Set<string>();

// Loaded when a run needs it: the suite's parent process should not load every engine's client.
async function parentBoss(db: EngineDatabase): Promise<PgBoss> {
  const { PgBoss } = await import('pg-boss');
  const boss = new PgBoss({
    connectionString: db.url,
    schema: PGBOSS_SCHEMA,
    application_name: PARENT_APPLICATION_NAME,
    max: 2,
    supervise: false,
    schedule: false,
  });
  boss.on('error', (error: Error) => console.error(`pg-boss (parent): ${error.message}`));
  return boss;
}

async function prepare(services: BenchServices, spec: PrepareSpec): Promise<PreparedRun> {
  const db = engineDatabase(services, 'pg-boss');
  // pg-boss's own pool writes the prefill; it is stopped before the window like the parent pool.
  await withParentPool(db, async (pool) => {
    if (!migrated.has(db.url)) {
      const boss = await parentBoss(db);
      await boss.start();
      await boss.createQueue(PGBOSS_QUEUE, { notify: true });
      await boss.stop({ graceful: false, close: true });
      migrated.add(db.url);
    }
    const tables = await schemaTables(pool, PGBOSS_SCHEMA);
    await emptyTables(pool, RUN_TABLES, tables);
    if (spec.jobs > 0) {
      const boss = await parentBoss(db);
      await boss.start();
      try {
        for (let from = 0; from < spec.jobs; from += PREFILL_BATCH) {
          const size = Math.min(PREFILL_BATCH, spec.jobs - from);
          await boss.insert(
            PGBOSS_QUEUE,
            Array.from({ length: size }, (_, k) => ({ data: { i: from + k, t: 0 } })),
          );
        }
      } finally {
        await boss.stop({ graceful: false, close: true });
      }
    }
    await analyzeTables(pool, tables);
  });
  const child: PgBossChildConfig = {
    url: db.url,
    poolSize: POOL_SIZE,
    ...pgBossShape(spec.concurrency),
  };
  const states = `SELECT state::text AS state, count(*) AS n FROM ${JOB} GROUP BY state`;
  return {
    child: { ...child },
    settle: settleByTimestamp(
      db,
      `SELECT count(*) FILTER (WHERE state = 'completed') AS done,
              (extract(epoch FROM max(completed_on)) * 1000)::float8 AS last_ms
       FROM ${JOB}`,
      spec.jobs,
    ),
    verify: async (expected) =>
      checkStates(await countStates(db, states), 'completed', ['failed', 'cancelled'], expected),
    cleanup: async () => undefined,
  };
}

export const pgBossAdapter: BenchAdapter = {
  id: 'pgboss',
  label: 'pg-boss',
  needs: ['postgres'],
  packages: ['pg-boss', 'pg'],
  durableWork:
    'PostgreSQL: one job row (inserted by send, updated to active when fetched and to completed ' +
    'when done, kept until maintenance deletes it); the job is the step, it has no step record.',
  queue: {
    consumerModule: WORKER_MODULE,
    producerModule: WORKER_MODULE,
    prepare,
    databaseCost: true,
  },
};
