// What PostgreSQL says differently for retention: JSON array elements, row triggers (a plpgsql
// function and the trigger that calls it), and the size of tables.

import { sql } from 'kysely';
import type { Db } from '../../database.js';
import type { InsertTrigger, TableStats } from '../storage-dialect.js';

export const pgJsonArrayElements = (expr: string, alias: string) =>
  `jsonb_array_elements_text(${expr}) as ${alias}(value)`;

export const pgInsertTrigger = (t: InsertTrigger): string[] => [
  `create function ${t.name}_fn() returns trigger language plpgsql as $$
   begin ${t.statement}; return null; end $$`,
  `create trigger ${t.name} after insert on ${t.table} for each row when (${t.when})
   execute function ${t.name}_fn()`,
];

/**
 * The statistics collector's live-row estimate (kept by every insert and delete as they commit,
 * exact enough for a trend, never a scan) and `pg_total_relation_size` (heap, indexes and TOAST
 * from the catalog): both O(1) per table.
 */
export async function pgTableStats(db: Db, tables: readonly string[]): Promise<TableStats[]> {
  if (tables.length === 0) return [];
  const r = await sql<{ relname: string; rows: string | number; bytes: string | number }>`
    select c.relname, coalesce(s.n_live_tup, 0) as rows, pg_total_relation_size(c.oid) as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    left join pg_stat_user_tables s on s.relid = c.oid
    where n.nspname = current_schema() and c.relkind in ('r', 'p')
      and c.relname in (${sql.join(tables.map((t) => sql.lit(t)))})`.execute(db);
  const byName = new Map(r.rows.map((x) => [x.relname, x]));
  return tables.map((table) => {
    const x = byName.get(table);
    return { table, rows: Number(x?.rows ?? 0), bytes: x ? Number(x.bytes) : undefined };
  });
}
