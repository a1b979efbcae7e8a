// Jobs by finish time (migration 0021): the operator's activity counts ("finished per state in
// the last 15 minutes / hour") read a range of this index, so their cost follows the jobs that
// finished in the window, not the table's history. No earlier index leads with a finish time
// (`jobs_retention` leads with state and kind, and reads `updated_at`). Only final states have
// `finished_at`, so the partial index holds no open job.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function finishedIndex(): Migration {
  return {
    async up(db: AnyDb) {
      // tenant_id and state ride along so a count is read from the index alone.
      await sql`create index jobs_finished on jobs (finished_at, tenant_id, state)
        where finished_at is not null`.execute(db);
    },
  };
}
