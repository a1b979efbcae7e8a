// Fair dequeue across tenants (migration 0010). The queued rows' partial index gains the tenant
// after the served (kind, version): the claim walks the distinct tenants with queued work of a
// version by skipping along this index (one probe per tenant), then takes each tenant's first rows
// in (priority desc, created_at) order from the same index, and hands them out round-robin within
// a priority level (write-model/claim-jobs.ts). Replaces 0009's index, which had no tenant.

import { sql, type Kysely, type Migration } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function fairness(): Migration {
  return {
    async up(db: AnyDb) {
      await sql`drop index jobs_queued`.execute(db);
      await sql`create index jobs_queued on jobs
        (kind, version, tenant_id, priority desc, created_at) where state = 'queued'`.execute(db);
    },
  };
}
