// Start limits per API key and the job's waiting reason. `api_key_id` records the key
// that submitted the job (the per-key start limits count by it); `waiting` is the JSON
// `JobWaiting` a limit hold writes with its attempt-refunding outcome and every later write of the
// job clears. Both additive and nullable: rows of older gateways simply have no key and no wait.

import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function jobLimits(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('jobs').addColumn('api_key_id', 'text').execute();
      await db.schema.alterTable('jobs').addColumn('waiting', 'text').execute();
    },
  };
}
