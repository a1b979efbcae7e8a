// Fair dequeue across tenants (migration 0010). The queued rows' partial index gains the tenant
// after the served (kind, version): the claim walks the distinct tenants with queued work of a
// version by skipping along this index (one probe per tenant), then takes each tenant's first rows
// in (priority desc, created_at) order from the same index, and hands them out round-robin within
// a priority level (write-model/claim-jobs.ts). Replaces 0009's index, which had no tenant.
//
// Shared limits (repos/limits.ts): `limit_slots` holds one row per held concurrency slot (a
// semaphore whose slots lapse at `expires_at`, so a crashed holder frees its slot by itself) and
// `limit_buckets` one token bucket per key. Times are epoch milliseconds (numbers, not ISO text):
// the bucket's refill is arithmetic on them.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function fairLimits(dialect: SqlDialect): Migration {
  const ms = sql.raw(dialect.floatType);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('limit_slots')
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', ms, (c) => c.notNull())
        .addPrimaryKeyConstraint('limit_slots_pk', ['key', 'holder'])
        .execute();
      await db.schema
        .createTable('limit_buckets')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('tokens', ms, (c) => c.notNull())
        .addColumn('at_ms', ms, (c) => c.notNull())
        .execute();
      await sql`drop index jobs_queued`.execute(db);
      await sql`create index jobs_queued on jobs
        (kind, version, tenant_id, priority desc, created_at) where state = 'queued'`.execute(db);
    },
  };
}
