// Migration 0001: the first schema — jobs and their event log, uploads, API keys, the queue of
// the in-database runtime, the dispatch outbox, named locks and the served-versions registry.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function init(dialect: SqlDialect): Migration {
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
