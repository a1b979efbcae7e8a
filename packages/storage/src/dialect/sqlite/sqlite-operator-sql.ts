// What SQLite (and D1, which starts from SQLite's SQL) says differently for the operator plane:
// a JSON object's entries as rows (the metadata index) and a table that refuses changes (the
// audit log). Pure text: no driver here.

import type { GuardedTable } from '../storage-dialect.js';

/**
 * One row per top-level key of the JSON object `expr`: `key`, and `value` as text — a string
 * as itself, anything else as its JSON text (json_each gives `true`/`false` as 1/0, hence the
 * type test).
 */
export const sqliteJsonObjectEntries = (expr: string, alias: string) =>
  `(select key, case type when 'text' then value when 'true' then 'true' when 'false' then 'false'
     when 'null' then 'null' when 'object' then value when 'array' then value
     else cast(value as text) end as value from json_each(${expr})) as ${alias}`;

/** BEFORE triggers that abort an UPDATE always and a DELETE unless `deleteWhen` holds (`old.`). */
export const sqliteGuardTrigger = (t: GuardedTable): string[] => [
  `create trigger ${t.table}_no_update before update on ${t.table}
   begin select raise(abort, '${t.table} is append-only'); end`,
  `create trigger ${t.table}_no_delete before delete on ${t.table}
   for each row when not (${t.deleteWhen})
   begin select raise(abort, '${t.table} is append-only'); end`,
];
