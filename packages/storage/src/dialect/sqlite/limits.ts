// The shared limits on SQLite: each step inside ONE immediate transaction (one writer: the count
// a slot is taken on cannot change under it). Statements: repos/limit-sql.ts.

import type SQLite from 'better-sqlite3';
import type { Db } from '../../database.js';
import { acquireSlotSql, takeTokenSql, wakeWaitersSql } from '../../repos/limit-sql.js';
import type { SlotArgs, TokenArgs, WakeArgs } from '../storage-dialect.js';
import { immediately, prepared } from './native-sqlite.js';
import { sqliteJsonText } from './sqlite-sql.js';

const [DROP_LAPSED, ACQUIRE] = acquireSlotSql((n) => `@${n}`) as [string, string];
const TAKE = takeTokenSql((n) => `@${n}`, 'min', 'max');
const [RELEASE, WAKE] = wakeWaitersSql(
  (n) => `@${n}`,
  (f) => sqliteJsonText('waiting', f),
  'max',
  '',
) as [string, string];

export function acquireSlotSqlite(handle: SQLite.Database, db: Db, a: SlotArgs): Promise<boolean> {
  return immediately(db, handle, () => {
    prepared(handle, DROP_LAPSED).run({ key: a.key, now: a.now });
    return prepared(handle, ACQUIRE).run(a).changes > 0;
  });
}

export function takeTokenSqlite(handle: SQLite.Database, db: Db, a: TokenArgs): Promise<boolean> {
  return immediately(db, handle, () => prepared(handle, TAKE).run(a).changes > 0);
}

export function wakeWaitersSqlite(handle: SQLite.Database, db: Db, a: WakeArgs): Promise<number> {
  return immediately(db, handle, () => {
    prepared(handle, RELEASE).run({ key: a.key, holder: a.holder, now: a.now });
    return prepared(handle, WAKE).run(a).changes;
  });
}
