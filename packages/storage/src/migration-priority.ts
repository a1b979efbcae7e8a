// Job priorities (migration 0009). `priority` is the job's current priority (higher is handed out
// first); `priority_at` is when it last changed (null: at creation), which the aging sweep reads
// to raise a waiting job one level per aging period. The queued rows' partial index is rebuilt
// in claim order — served (kind, version), then priority, then age — so a claim still walks one
// index range per version and stops at its limit.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function priority(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('jobs')
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('jobs').addColumn('priority_at', 'text').execute();
      await sql`drop index jobs_queued`.execute(db);
      await sql`create index jobs_queued on jobs (kind, version, priority desc, created_at)
        where state = 'queued'`.execute(db);
    },
  };
}
