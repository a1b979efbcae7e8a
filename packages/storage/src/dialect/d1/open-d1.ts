// A job database on Cloudflare D1 (SQLite behind a binding). The same schema, migrations and SQL
// as the SQLite dialect: kysely runs single statements through kysely-d1, and every write that
// must land whole is ONE statement or ONE `batch()` (D1 has no interactive transactions: kysely's
// `transaction()` and SQL `BEGIN` both fail). `native.dialect === 'd1'` is what the write model
// and the batch-based repos branch on; `capabilities.interactiveTransactions` tells callers that
// `transaction(fn)` is not available here.

import { SluiceError } from '@sluice/contracts';
import {
  Kysely,
  SqliteAdapter,
  type CompiledQuery,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { AtomicBatch } from '../dialect.js';
import { D1Dialect } from 'kysely-d1';
import type { SluiceDatabase } from '../database.js';
import type { Database } from '../schema.js';
import { D1Introspector } from './d1-introspector.js';
import type { D1Like } from './d1-like.js';

/** SQLite's adapter, plus the capability repositories branch on (dialect.ts `atomicBatchOf`). */
class D1Adapter extends SqliteAdapter {
  /** D1 binds at most 100 parameters per statement (dialect.ts `rowsPerStatement`). */
  readonly maxBoundParameters = 100;
  readonly atomicBatch: AtomicBatch;
  constructor(d1: D1Like) {
    super();
    this.atomicBatch = {
      async run<R>(queries: readonly CompiledQuery[]): Promise<QueryResult<R>[]> {
        if (queries.length === 0) return [];
        const results = await d1.batch<R>(
          queries.map((q) => d1.prepare(q.sql).bind(...q.parameters)),
        );
        return results.map((r) => {
          const changes = r.meta.changes;
          return {
            rows: r.results,
            ...(changes !== undefined ? { numAffectedRows: BigInt(changes) } : {}),
          };
        });
      },
    };
  }
}

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

/** kysely-d1's dialect with an introspector D1 allows (d1-introspector.ts). */
function d1Dialect(d1: D1Like): Dialect {
  const base = new D1Dialect({ database: d1 as never });
  return {
    createAdapter: () => new D1Adapter(d1),
    createDriver: () => quietDriver(base.createDriver()),
    createQueryCompiler: () => base.createQueryCompiler(),
    createIntrospector: (db) => new D1Introspector(db),
  };
}

export function openD1Database(d1: D1Like): SluiceDatabase {
  const db = new Kysely<Database>({ dialect: d1Dialect(d1) });
  return {
    db,
    // The SQL flavour: repos and migrations write SQLite's SQL, which D1 runs unchanged.
    dialect: 'sqlite',
    native: { dialect: 'd1', d1 },
    capabilities: { interactiveTransactions: false },
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
