// DBOS Transact 5, parent side. The system schema `dbos` is created with DBOS's own `migrate`
// once per database; before every run the workflow tables are emptied and vacuumed (pg-engine.ts)
// and the queue is registered with workerConcurrency c and the 10 ms poll (a queue's settings
// live in its `queues` row, so the children dispatch with them from launch on). N workflows are
// enqueued (dbos-prefill.ts: one through DBOS's own client, its rows copied), then analyzed. A
// workflow is done when its status is SUCCESS; its `completed_at` dates the last one.
import type { BenchAdapter, BenchServices, PrepareSpec, PreparedRun } from '../adapter.js';
import {
  DBOS_APP,
  DBOS_POLL_MS,
  DBOS_QUEUE,
  DBOS_SCHEMA,
  type DbosChildConfig,
} from './dbos-config.js';
import { enqueueWorkflows } from './dbos-prefill.js';
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

const WORKER_MODULE = new URL('../workers/dbos.ts', import.meta.url).href;
/** Emptied before every run; migrations, queues and application versions are kept. */
const RUN_TABLES = [
  'workflow_status',
  'workflow_input',
  'workflow_output',
  'operation_outputs',
  'notifications',
  'workflow_events',
  'workflow_events_history',
  'streams',
  'event_dispatch_kv',
].map((t) => `${DBOS_SCHEMA}.${t}`);
const STATUS = `${DBOS_SCHEMA}.workflow_status`;

const migrated = new Set<string>();

async function prepare(services: BenchServices, spec: PrepareSpec): Promise<PreparedRun> {
  const db = engineDatabase(services, 'dbos');
  // Loaded when a run needs it: the suite's parent process should not load every engine's client.
  const { DBOS, DBOSClient } = await import('@dbos-inc/dbos-sdk');
  if (!migrated.has(db.url)) {
    await DBOS.migrate(db.url, { schemaName: DBOS_SCHEMA });
    migrated.add(db.url);
  }
  await withParentPool(
    db,
    async (pool) => {
      const tables = await schemaTables(pool, DBOS_SCHEMA);
      await emptyTables(pool, RUN_TABLES, tables);
      const client = await DBOSClient.create({
        systemDatabaseUrl: db.url,
        systemDatabasePool: pool,
        systemDatabaseSchemaName: DBOS_SCHEMA,
        applicationName: DBOS_APP,
      });
      try {
        await client.registerQueue(DBOS_QUEUE, {
          workerConcurrency: spec.concurrency,
          minPollingIntervalMs: DBOS_POLL_MS,
          onConflict: 'always_update',
        });
        await enqueueWorkflows(pool, client, spec.jobs);
      } finally {
        await client.destroy();
      }
      await analyzeTables(pool, tables);
    },
    2,
  );
  const child: DbosChildConfig = { url: db.url };
  return {
    child: { ...child },
    settle: settleByTimestamp(
      db,
      `SELECT count(*) FILTER (WHERE status = 'SUCCESS') AS done,
              max(completed_at)::float8 AS last_ms
       FROM ${STATUS}`,
      spec.jobs,
    ),
    verify: async (expected) =>
      checkStates(
        await countStates(db, `SELECT status AS state, count(*) AS n FROM ${STATUS} GROUP BY 1`),
        'SUCCESS',
        ['ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'],
        expected,
      ),
    cleanup: async () => undefined,
  };
}

export const dbosAdapter: BenchAdapter = {
  id: 'dbos',
  label: 'DBOS Transact',
  needs: ['postgres'],
  packages: ['@dbos-inc/dbos-sdk', 'pg'],
  durableWork:
    'PostgreSQL: the workflow status row (ENQUEUED, then PENDING when dequeued, SUCCESS at the ' +
    'end) and its input row, one operation_outputs row with the step result, one workflow_output ' +
    'row.',
  queue: {
    consumerModule: WORKER_MODULE,
    producerModule: WORKER_MODULE,
    prepare,
    databaseCost: true,
  },
};
