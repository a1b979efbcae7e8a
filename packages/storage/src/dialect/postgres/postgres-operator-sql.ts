// What PostgreSQL says differently for the operator plane: a JSON object's entries as rows (the
// metadata index) and a table that refuses changes (the audit log).

import type { GuardedTable } from '../storage-dialect.js';

/** One row per top-level key of the jsonb object `expr`: `key`, and `value` as text. */
export const pgJsonObjectEntries = (expr: string, alias: string) =>
  `jsonb_each_text(${expr}) as ${alias}(key, value)`;

/** A row trigger that raises on every UPDATE, and on a DELETE unless `deleteWhen` holds (`old.`). */
export const pgGuardTrigger = (t: GuardedTable): string[] => [
  `create function ${t.table}_guard() returns trigger language plpgsql as $$
   begin
     if tg_op = 'DELETE' and (${t.deleteWhen}) then return old; end if;
     raise exception '% is append-only', tg_table_name using errcode = 'check_violation';
   end $$`,
  `create trigger ${t.table}_guard before update or delete on ${t.table}
   for each row execute function ${t.table}_guard()`,
];
