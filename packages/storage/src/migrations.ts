// One migration set for every database, inline (FileMigrationProvider fails under vitest). What
// differs is read from the dialect: column types, the identity column, and the triggers a
// database with LISTEN/NOTIFY gets.

import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { SluiceDatabase } from './database.js';
import type { SqlDialect } from './dialect/storage-dialect.js';
import { fairLimits } from './migration-fair-limits.js';
import { flowControl } from './migration-flow-control.js';
import { jobLimits } from './migration-job-limits.js';
import { operator } from './migration-operator.js';
import { priority } from './migration-priority.js';
import { retention } from './migration-retention.js';
import { schedules } from './migration-schedules.js';
import { waits } from './migration-waits.js';
import { workerLiveness } from './migration-worker-liveness.js';
import { writeModel } from './migration-write-model.js';
import { assetsTenantIndex } from './repos/tenant-storage.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

function init(dialect: SqlDialect): Migration {
  const json = dialect.jsonType;
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('input', sql.raw(json), (c) => c.notNull())
        .addColumn('output', sql.raw(json))
        .addColumn('error', sql.raw(json))
        .addColumn('reason', 'text')
        .addColumn('idempotency_key', 'text')
        .addColumn('input_hash', 'text', (c) => c.notNull())
        .addColumn('file_ids', sql.raw(json), (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('attempt_id', 'text')
        .addColumn('last_seq', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('run_after', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      // NULL keys never collide, so jobs without an idempotency key are not constrained.
      await db.schema
        .createIndex('jobs_idempotency')
        .on('jobs')
        .columns(['tenant_id', 'idempotency_key'])
        .unique()
        .execute();
      await db.schema
        .createIndex('jobs_tenant_created')
        .on('jobs')
        .columns(['tenant_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('jobs_tenant_state')
        .on('jobs')
        .columns(['tenant_id', 'state', 'created_at'])
        .execute();
      await db.schema
        .createIndex('jobs_state')
        .on('jobs')
        .columns(['state', 'updated_at'])
        .execute();

      await db.schema
        .createTable('job_events')
        .addColumn('id', 'integer', (c) => dialect.identity(c))
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('payload', sql.raw(json), (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('job_events_job_seq')
        .on('job_events')
        .columns(['job_id', 'seq'])
        .unique()
        .execute();
      await db.schema
        .createIndex('job_events_tenant')
        .on('job_events')
        .columns(['tenant_id', 'id'])
        .execute();

      await db.schema
        .createTable('files')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull().unique())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('filename', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text')
        .execute();
      await db.schema
        .createIndex('files_tenant')
        .on('files')
        .columns(['tenant_id', 'created_at'])
        .execute();
      await db.schema.createIndex('files_expiry').on('files').columns(['expires_at']).execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('label', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text')
        .execute();

      await db.schema
        .createTable('queue')
        .addColumn('job_id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('available_at', 'text', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_token', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_expires_at', 'text')
        .addColumn('deliveries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('queue_ready')
        .on('queue')
        .columns(['kind', 'version', 'available_at'])
        .execute();

      await db.schema
        .createTable('outbox')
        .addColumn('job_id', 'text', (c) => c.primaryKey())
        .addColumn('due_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('outbox_due').on('outbox').columns(['due_at']).execute();

      await db.schema
        .createTable('locks')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('served_versions')
        .addColumn('worker_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('served_versions_pk', ['worker_id', 'kind', 'version'])
        .execute();
    },
  };
}

function retrySafety(dialect: SqlDialect): Migration {
  const json = dialect.jsonType;
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('units')
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('unit_key', 'text', (c) => c.notNull())
        .addColumn('result', sql.raw(json))
        .addColumn('asset_key', 'text')
        .addColumn('attempt_id', 'text', (c) => c.notNull())
        .addColumn('epoch', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('units_pk', ['job_id', 'unit_key'])
        .execute();

      await db.schema
        .createTable('provider_calls')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('unit_key', 'text', (c) => c.notNull())
        .addColumn('call_name', 'text', (c) => c.notNull())
        .addColumn('attempt_id', 'text', (c) => c.notNull())
        .addColumn('epoch', 'integer', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('stage', 'text', (c) => c.notNull())
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('modality', 'text', (c) => c.notNull())
        .addColumn('call_class', 'text', (c) => c.notNull())
        .addColumn('request_key', 'text')
        .addColumn('external_id', 'text')
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('response', sql.raw(json))
        .addColumn('error', sql.raw(json))
        .addColumn('authorised_by', 'text')
        .addColumn('note', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('provider_calls_unit')
        .on('provider_calls')
        .columns(['job_id', 'unit_key', 'created_at'])
        .execute();
      await db.schema
        .createIndex('provider_calls_outcome')
        .on('provider_calls')
        .columns(['call_class', 'outcome'])
        .execute();

      await db.schema
        .createTable('asset_owners')
        .addColumn('final_key', 'text', (c) => c.primaryKey())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('unit_key', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('attempt_id', 'text', (c) => c.notNull())
        .addColumn('epoch', 'integer', (c) => c.notNull())
        .addColumn('staging_key', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('assets')
        .addColumn('final_key', 'text', (c) => c.primaryKey())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('unit_key', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('attempt_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('assets_job').on('assets').columns(['job_id']).execute();
    },
  };
}

function jobLease(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('jobs').addColumn('lease_until', 'text').execute();
    },
  };
}

/**
 * Where the database has LISTEN/NOTIFY (PostgreSQL): NOTIFY new event ids from a statement-level
 * trigger instead of a second statement per insert (no extra round trip). A connection started with `-c sluice.notify=off` (runtimes
 * that carry events themselves) skips it, and with it NOTIFY's commit-time lock.
 */
function eventsNotifyTrigger(dialect: SqlDialect): Migration {
  return {
    async up(db: AnyDb) {
      if (!dialect.capabilities.listenNotify) return;
      await sql`
        create function sluice_notify_events() returns trigger language plpgsql as $$
        declare ids text[];
        begin
          if coalesce(current_setting('sluice.notify', true), 'on') = 'off' then return null; end if;
          select array_agg(id::text order by id) into ids from new_events;
          if ids is null then return null; end if;
          for i in 1 .. array_length(ids, 1) by 500 loop
            perform pg_notify('sluice_events', array_to_string(ids[i : i + 499], ','));
          end loop;
          return null;
        end $$`.execute(db);
      await sql`
        create trigger job_events_notify after insert on job_events
        referencing new table as new_events
        for each statement execute function sluice_notify_events()`.execute(db);
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
