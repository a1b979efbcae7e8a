// Migration 0002: what lets a later attempt reuse paid work instead of repeating it — unit
// checkpoints, the provider-call ledger (written before a request leaves), asset ownership and
// published assets.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function retrySafety(dialect: SqlDialect): Migration {
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
