// Absurd, parent side. Its schema is Absurd's own SQL, vendored in bench/vendor/absurd (its
// installer is a Python tool on PyPI, unreachable here, and the npm SDK does not ship the SQL),
// loaded once per database; the queue `bench` is created with Absurd's `create_queue`. Before
// every run the queue's tables are emptied and vacuumed (pg-engine.ts) and N tasks spawned by
// `absurd.spawn_task`, called once per task in one statement over generate_series with the
// options the SDK's `spawn()` sends by default: the same function and rows `spawn()` writes (a
// task row and its first run row), then analyzed. A task is done when its run is `completed`; the run's
// `completed_at` dates the last one.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchAdapter, BenchServices, PrepareSpec, PreparedRun } from '../adapter.js';
import {
  ABSURD_QUEUE,
  ABSURD_SPAWN_OPTIONS,
  ABSURD_TASK,
  type AbsurdChildConfig,
} from './absurd-config.js';
import { engineDatabase } from './engine-db.js';
import {
  analyzeTables,
  checkStates,
  countStates,
  emptyTables,
  schemaTables,
  settleByTimestamp,
  withParentPool,
} from './pg-engine.js';

const WORKER_MODULE = new URL('../workers/absurd.ts', import.meta.url).href;
const SCHEMA_SQL = fileURLToPath(new URL('../../vendor/absurd/absurd.sql', import.meta.url));
const POOL_SIZE = 10;
/** The queue's tables: tasks, runs, checkpoints, events, waits. */
const QUEUE_TABLES = ['t', 'r', 'c', 'e', 'w'].map((p) => `absurd.${p}_${ABSURD_QUEUE}`);
const TASKS = `absurd.t_${ABSURD_QUEUE}`;
const RUNS = `absurd.r_${ABSURD_QUEUE}`;

const installed = new Set<string>();

async function prepare(services: BenchServices, spec: PrepareSpec): Promise<PreparedRun> {
  const db = engineDatabase(services, 'absurd');
  await withParentPool(db, async (pool) => {
    if (!installed.has(db.url)) {
      const exists = await pool.query("SELECT 1 FROM pg_namespace WHERE nspname = 'absurd'");
      if (exists.rowCount === 0) await pool.query(readFileSync(SCHEMA_SQL, 'utf8'));
      await pool.query(
        'SELECT absurd.create_queue($1) WHERE NOT EXISTS ' +
          '(SELECT 1 FROM absurd.queues WHERE queue_name = $1)',
        [ABSURD_QUEUE],
      );
      installed.add(db.url);
    }
    const tables = await schemaTables(pool, 'absurd');
    await emptyTables(pool, QUEUE_TABLES, tables);
    if (spec.jobs > 0)
      await pool.query(
        `SELECT count(*) FROM generate_series(0, $4::int - 1) AS k,
           LATERAL absurd.spawn_task($1, $2, jsonb_build_object('i', k, 't', 0), $3::jsonb)`,
        [ABSURD_QUEUE, ABSURD_TASK, JSON.stringify(ABSURD_SPAWN_OPTIONS), spec.jobs],
      );
    await analyzeTables(pool, tables);
  });
  const child: AbsurdChildConfig = { url: db.url, poolSize: POOL_SIZE };
  return {
    child: { ...child },
    settle: settleByTimestamp(
      db,
      `SELECT count(*) FILTER (WHERE state = 'completed') AS done,
              (extract(epoch FROM max(completed_at)) * 1000)::float8 AS last_ms
       FROM ${RUNS}`,
      spec.jobs,
    ),
    verify: async (expected) =>
      checkStates(
        await countStates(db, `SELECT state, count(*) AS n FROM ${TASKS} GROUP BY state`),
        'completed',
        ['failed', 'cancelled'],
        expected,
      ),
    cleanup: async () => undefined,
  };
}

export const absurdAdapter: BenchAdapter = {
  id: 'absurd',
  label: 'Absurd',
  needs: ['postgres'],
  packages: ['absurd-sdk', 'pg'],
  durableWork:
    'PostgreSQL: a task row and a run row (spawn), the run claimed (UPDATE), one checkpoint row ' +
    'with the step result, the run and the task completed (UPDATEs).',
  queue: {
    consumerModule: WORKER_MODULE,
    producerModule: WORKER_MODULE,
    prepare,
    databaseCost: true,
  },
};
