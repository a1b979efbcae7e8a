// A job database on Cloudflare D1 (SQLite behind a binding). The same schema, migrations and SQL
// as the SQLite dialect: kysely runs single statements through kysely-d1, and every write that
// must land whole is ONE statement or ONE `batch()` (D1 has no interactive transactions: kysely's
// `transaction()` and SQL `BEGIN` both fail). What differs is the D1 dialect's (d1-dialect.ts):
// its statements, its batch and its capabilities, which tell callers that `transaction(fn)` is
// not available here.

import { SluiceError } from '@sluice/contracts';
import {
  Kysely,
  SqliteAdapter,
  type CompiledQuery,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { D1Dialect } from 'kysely-d1';
import type { SluiceDatabase } from '../../database.js';
import type { Database } from '../../schema.js';
import { carryingDialect, type SqlDialect } from '../storage-dialect.js';
import { createD1Dialect } from './d1-dialect.js';
import { D1Introspector } from './d1-introspector.js';
import type { D1Like } from './d1-like.js';

/**
 * kysely-d1's driver, minus the deprecated `numUpdatedOrDeletedRows` it still returns next to
 * `numAffectedRows` (kysely prints an "outdated driver" warning for it on every process).
 */
function quietDriver(driver: Driver): Driver {
  const acquireConnection = driver.acquireConnection.bind(driver);
  driver.acquireConnection = async () => {
    const connection = await acquireConnection();
    const executeQuery = connection.executeQuery.bind(connection);
    connection.executeQuery = async <R>(query: CompiledQuery) => {
      const result = (await executeQuery<R>(query)) as QueryResult<R> & {
        numUpdatedOrDeletedRows?: bigint;
      };
      delete result.numUpdatedOrDeletedRows;
      return result;
    };
    return connection;
  };
  return driver;
}

/**
 * kysely-d1's dialect with an introspector D1 allows (d1-introspector.ts); its adapter is
 * SQLite's, carrying the D1 dialect (its batch, its parameter limit) to every handle.
 */
function d1Dialect(d1: D1Like, dialect: SqlDialect): Dialect {
  const base = new D1Dialect({ database: d1 as never });
  return {
    createAdapter: () => carryingDialect(new SqliteAdapter(), dialect),
    createDriver: () => quietDriver(base.createDriver()),
    createQueryCompiler: () => base.createQueryCompiler(),
    createIntrospector: (db) => new D1Introspector(db),
  };
}

export function openD1Database(d1: D1Like): SluiceDatabase {
  const dialect = createD1Dialect(d1);
  const db = new Kysely<Database>({ dialect: d1Dialect(d1, dialect) });
  return {
    db,
    dialect,
    capabilities: dialect.capabilities,
    transaction: () =>
      Promise.reject(
        new SluiceError(
          'INTERNAL',
          'D1 has no interactive transactions: use the statement or batch() form of this write',
        ),
      ),
    pgPool: undefined,
    sqliteFile: undefined,
    close: () => db.destroy(),
  };
}
