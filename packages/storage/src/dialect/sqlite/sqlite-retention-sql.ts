// What SQLite (and D1, which starts from SQLite's SQL) says differently for retention: JSON array
// elements, row triggers, and the size of tables. Pure text and kysely queries: no driver here.

import { sql } from 'kysely';
import type { Db } from '../../database.js';
import type { InsertTrigger, TableStats } from '../storage-dialect.js';

export const sqliteJsonArrayElements = (expr: string, alias: string) =>
  `json_each(${expr}) as ${alias}`;

export const sqliteInsertTrigger = (t: InsertTrigger): string[] => [
  `create trigger ${t.name} after insert on ${t.table} for each row when ${t.when}
   begin ${t.statement}; end`,
];

/**
 * Exact row counts (`count(*)`: one pass over each table's smallest index) and, where the build
 * has the `dbstat` table (better-sqlite3's does; D1 does not), the pages of each table and its
 * indexes. Both read every page they measure — about 0.1 s per 100 MB here — so the caller reads
 * them at the sweeper's pace, never on every scrape. Without `dbstat` bytes are left out.
 */
export async function sqliteTableStats(db: Db, tables: readonly string[]): Promise<TableStats[]> {
  if (tables.length === 0) return [];
  const counts = await sql<Record<string, number | string>>`select ${sql.join(
    tables.map((t, i) => sql`(select count(*) from ${sql.table(t)}) as ${sql.ref(`t${i}`)}`),
  )}`.execute(db);
  const row = counts.rows[0] ?? {};
  let bytes: Map<string, number> | undefined;
  try {
    const pages = await sql<{ tbl_name: string; bytes: number | string }>`
      select m.tbl_name, sum(s.pgsize) as bytes from dbstat as s
      join sqlite_master m on m.name = s.name where s.aggregate = 1 group by m.tbl_name`.execute(
      db,
    );
    bytes = new Map(pages.rows.map((r) => [r.tbl_name, Number(r.bytes)]));
  } catch {
    bytes = undefined; // no dbstat in this build: rows only
  }
  return tables.map((table, i) => ({
    table,
    rows: Number(row[`t${i}`] ?? 0),
    bytes: bytes ? (bytes.get(table) ?? 0) : undefined,
  }));
}
