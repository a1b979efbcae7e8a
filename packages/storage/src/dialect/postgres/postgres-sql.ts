// PostgreSQL's SQL as the repositories and migrations need it.

import { pgUnavailable } from '../unavailable.js';
import { sql } from 'kysely';
import type { SqlDialect, StorageCapabilities } from '../storage-dialect.js';
import { insertAcceptedPg } from './accept-insert.js';
import { pgInsertTrigger, pgJsonArrayElements, pgTableStats } from './postgres-retention-sql.js';

import { pgGuardTrigger, pgJsonObjectEntries } from './postgres-operator-sql.js';

const CAPABILITIES: StorageCapabilities = {
  interactiveTransactions: true,
  atomicBatch: false,
  concurrentWriters: true,
  rowLocks: true,
  listenNotify: true,
  maxBoundParameters: 65_535,
};

/** `waiting` is text: cast to json for `->>` (immutable, so an index can hold it). */
export const pgJsonText = (expr: string, field: string) => `((${expr})::json ->> '${field}')`;

export const POSTGRES_SQL: SqlDialect = {
  name: 'postgres',
  capabilities: CAPABILITIES,
  isUnavailable: pgUnavailable,
  jsonType: 'jsonb',
  floatType: 'double precision',
  identity: (column) => column.primaryKey().generatedAlwaysAsIdentity(),
  asJson: (value) => sql`cast(${value} as jsonb)`,
  // `update … from v returning *` would return v's columns too.
  returningAll: (table) => sql.raw(`${table}.*`),
  insertAccepted: insertAcceptedPg,
  jsonText: pgJsonText,
  jsonArrayElements: pgJsonArrayElements,
  insertTrigger: pgInsertTrigger,
  jsonObjectEntries: pgJsonObjectEntries,
  guardTrigger: pgGuardTrigger,
  tableStats: pgTableStats,
};
