// The waiting lists of `maxRunning` start limits (migration 0022). A job the start gate holds for
// a slot is stored `queued` with `waiting` naming the limit and a long backstop due time, so the
// embedded claim passes it by; releasing a slot of the key makes the key's next waiters due
// (repos/limits.ts `wakeWaiters`). One index finds a key's waiters in wake order (priority, then
// age), the other those already due, without reading the other queued jobs of the kind: rows
// without a wait are in neither. Their expressions are the dialect's `jsonText` of `waiting`,
// the same text the wake statement uses (repos/limit-sql.ts), or they would not serve it.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';
import { waitersIndexSql } from './repos/limit-sql.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function limitWaiters(dialect: SqlDialect): Migration {
  return {
    async up(db: AnyDb) {
      const field = (f: string) => dialect.jsonText('waiting', f);
      for (const statement of waitersIndexSql(field)) await sql.raw(statement).execute(db);
    },
  };
}
