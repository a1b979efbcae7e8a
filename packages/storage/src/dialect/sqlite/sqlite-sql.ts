// SQLite's SQL as the repositories and migrations need it, and the statement texts D1 shares
// (D1 is SQLite behind a binding: dialect/d1/ builds on this). Pure: no driver is imported here.

import { sqliteUnavailable } from '../unavailable.js';
import { sql } from 'kysely';
import type { SqlDialect, StorageCapabilities } from '../storage-dialect.js';
import { SNAPSHOT_COLUMNS } from '../../write-model/snapshot-row.js';
import { insertAcceptedSqlite } from './accept-insert.js';
import {
  sqliteInsertTrigger,
  sqliteJsonArrayElements,
  sqliteTableStats,
} from './sqlite-retention-sql.js';

import { sqliteGuardTrigger, sqliteJsonObjectEntries } from './sqlite-operator-sql.js';

const CAPABILITIES: StorageCapabilities = {
  interactiveTransactions: true,
  atomicBatch: false,
  // One writer at a time: transactions begin IMMEDIATE (they take the write lock up front).
  concurrentWriters: false,
  rowLocks: false,
  listenNotify: false,
  maxBoundParameters: 32_766,
};

export const sqliteJsonText = (expr: string, field: string) => `(${expr} ->> '${field}')`;

export const SQLITE_SQL: SqlDialect = {
  name: 'sqlite',
  capabilities: CAPABILITIES,
  isUnavailable: sqliteUnavailable,
  jsonType: 'text',
  floatType: 'real',
  identity: (column) => column.primaryKey().autoIncrement(),
  asJson: (value) => value,
  // SQLite's RETURNING takes no `table.*`, and its `update … from` returns the target's columns.
  returningAll: () => sql`*`,
  insertAccepted: insertAcceptedSqlite,
  jsonText: sqliteJsonText,
  jsonArrayElements: sqliteJsonArrayElements,
  insertTrigger: sqliteInsertTrigger,
  jsonObjectEntries: sqliteJsonObjectEntries,
  guardTrigger: sqliteGuardTrigger,
  tableStats: sqliteTableStats,
};

/** The snapshots of a read batch: one JSON array parameter, so one text fits every batch size. */
export const SNAPSHOTS_SQL = `select ${SNAPSHOT_COLUMNS} from jobs where id in (select value from json_each(?))`;
