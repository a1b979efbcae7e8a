// Opens a PostgreSQL job database: a pg pool under kysely, set up for short indexed statements
// (no JIT, custom plans), JSON read back as text, and a session timeout for a transaction left
// idle by a frozen process.

import { createRequire } from 'node:module';
import { Kysely, PostgresDialect, type Dialect } from 'kysely';
import type pg from 'pg';
import type { OpenDatabaseOptions, SluiceDatabase } from '../../database.js';
import { requireOptional } from '../../require-optional.js';
import type { Database } from '../../schema.js';
import { carryingDialect } from '../storage-dialect.js';
import { createPostgresDialect } from './postgres-dialect.js';
import { POSTGRES_SQL } from './postgres-sql.js';

// The driver is an optional peer dependency: it loads only when a postgres:// URL is opened.
const requireDriver = createRequire(import.meta.url);
const loadPg = () =>
  requireOptional<typeof pg>(requireDriver, 'pg', 'a PostgreSQL database (postgres:// URL)');

/** Kysely's PostgreSQL dialect; its adapter carries PostgreSQL's SqlDialect. */
function postgresDialect(pool: pg.Pool): Dialect {
  const base = new PostgresDialect({ pool });
  return {
    createAdapter: () => carryingDialect(base.createAdapter(), POSTGRES_SQL),
    createDriver: () => base.createDriver(),
    createIntrospector: (db) => base.createIntrospector(db),
    createQueryCompiler: () => base.createQueryCompiler(),
  };
}

// json (114) and jsonb (3802) come back as text, as on SQLite, so `fromJson` reads both the same
// way (pg would otherwise hand back a jsonb string scalar already parsed, indistinguishable from
// JSON text). Per pool, not the global `pg.types`.
const JSON_OIDS = new Set([114, 3802]);
function pgTypesOf(driver: typeof pg) {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      JSON_OIDS.has(oid)
        ? (value: string) => value
        : driver.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
  };
}

export function openPostgres(url: string, opts: OpenDatabaseOptions): SluiceDatabase {
  const driver = loadPg();
  const pool = new driver.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    types: pgTypesOf(driver),
    idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs ?? 5_000,
    // JIT off: Sluice's statements are short and indexed, and one whose estimate is inflated (a
    // generic plan of the claim guessed millions of rows) was JIT-compiled at ~1.1 s a call.
    // Custom plans only: the hot statements are named, and a generic plan cached while `jobs`
    // was small (a queue analysed idle, then a burst) scanned the whole table in every terminal
    // write and admission read until autovacuum analysed again; planned per run, PostgreSQL
    // scales its row estimates by the table's current size (write-model/planner.test.ts).
    options: `-c jit=off -c plan_cache_mode=force_custom_plan${
      opts.notifyEvents === false ? ' -c sluice.notify=off' : ''
    }`,
  });
  // An idle client error (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor must a checked-out client's (a session the server ended mid-transaction, see
  // idleInTransactionTimeoutMs): its pending query rejects, and the pool drops the client.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: postgresDialect(pool) });
  const dialect = createPostgresDialect(pool, db);
  return {
    db,
    dialect,
    capabilities: dialect.capabilities,
    transaction: (fn) => db.transaction().execute(fn),
    pgPool: pool,
    sqliteFile: undefined,
    // kysely ends the pool only if it ever used it; the write model's statements use the pool
    // directly, so a handle that never ran a kysely query would leave its connections open.
    close: async () => {
      await db.destroy();
      if (!pool.ending) await pool.end();
    },
  };
}
