// One migration set for every database, inline (FileMigrationProvider fails under vitest). What
// differs is read from the dialect: column types, the identity column, and the triggers a
// database with LISTEN/NOTIFY gets.

import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { SluiceDatabase } from './database.js';
import type { SqlDialect } from './dialect/storage-dialect.js';
import { eventsNotifyTrigger } from './migration-events-notify.js';
import { fairLimits } from './migration-fair-limits.js';
import { finishedIndex } from './migration-finished-index.js';
import { init } from './migration-init.js';
import { flowControl } from './migration-flow-control.js';
import { jobLimits } from './migration-job-limits.js';
import { limitWaiters } from './migration-limit-waiters.js';
import { operator } from './migration-operator.js';
import { priority } from './migration-priority.js';
import { retrySafety } from './migration-retry-safety.js';
import { retention } from './migration-retention.js';
import { schedules } from './migration-schedules.js';
import { waits } from './migration-waits.js';
import { workerLiveness } from './migration-worker-liveness.js';
import { writeModel } from './migration-write-model.js';
import { assetsTenantIndex } from './repos/tenant-storage.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

function jobLease(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('jobs').addColumn('lease_until', 'text').execute();
    },
  };
}

/**
 * The W3C trace context a job was submitted under (nullable, additive): the worker continues the
 * submit's trace from the job row, so the message pointer's wire format stays as it is.
 */
function traceContext(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('jobs').addColumn('trace_context', 'text').execute();
    },
  };
}

/**
 * Key scopes and expiry (additive). Keys made before scopes keep what they could do then (every
 * scope but `admin`, which did not exist); `expires_at` null means the key does not expire.
 */
function keyScopes(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('api_keys')
        .addColumn('scopes', 'text', (c) =>
          c.notNull().defaultTo('jobs:submit jobs:read review:decide dead-letters:manage'),
        )
        .execute();
      await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
    },
  };
}

/** Migrations by name, in order. Later issues append entries; never edit a shipped one. */
export function migrationsFor(dialect: SqlDialect): Record<string, Migration> {
  return {
    '0001_init': init(dialect),
    '0002_retry_safety': retrySafety(dialect),
    '0003_job_lease': jobLease(),
    '0004_events_notify_trigger': eventsNotifyTrigger(dialect),
    '0005_write_model': writeModel(dialect),
    '0006_trace_context': traceContext(),
    '0007_key_scopes': keyScopes(),
    '0008_schedules': schedules(dialect),
    '0009_priority': priority(),
    '0010_fair_limits': fairLimits(dialect),
    '0014_assets_tenant': assetsTenantIndex(),
    '0015_job_limits': jobLimits(),
    '0016_retention': retention(dialect),
    '0017_flow_control': flowControl(),
    '0018_waits': waits(dialect),
    '0019_operator': operator(dialect),
    '0020_worker_liveness': workerLiveness(),
    '0021_finished_index': finishedIndex(),
    '0022_limit_waiters': limitWaiters(dialect),
  };
}

export async function migrate(database: SluiceDatabase): Promise<string[]> {
  const provider: MigrationProvider = {
    getMigrations: async () => migrationsFor(database.dialect),
  };
  const migrator = new Migrator({ db: database.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
