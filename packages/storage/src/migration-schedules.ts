// Recurring schedules (migration 0008): one row per schedule, with the next tick it fires at.
// The due-job scheduler reads due rows through `schedules_due` (only active ones are in it) and
// moves `next_fire_at` forward with a compare-and-set on its old value, so two gateways never
// both advance one tick.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function schedules(dialect: SqlDialect): Migration {
  const json = dialect.jsonType;
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('schedules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('input', sql.raw(json), (c) => c.notNull())
        .addColumn('cron', 'text', (c) => c.notNull())
        .addColumn('timezone', 'text', (c) => c.notNull())
        .addColumn('missed', 'text', (c) => c.notNull())
        .addColumn('catch_up_limit', 'integer', (c) => c.notNull())
        .addColumn('paused', 'integer', (c) => c.notNull())
        .addColumn('next_fire_at', 'text')
        .addColumn('last_fire_at', 'text')
        .addColumn('fired', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await sql`create index schedules_due on schedules (next_fire_at) where paused = 0`.execute(
        db,
      );
      await sql`create index schedules_tenant on schedules (tenant_id, created_at, id)`.execute(db);
      await sql`create unique index schedules_tenant_name on schedules (tenant_id, name)
        where name is not null`.execute(db);
    },
  };
}
