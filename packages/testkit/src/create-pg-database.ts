// A fresh PostgreSQL database per test (or per file), dropped afterwards. The server is shared
// (127.0.0.1:5432); isolation comes from the database name.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onProcessExit } from './exit-hooks.js';

export interface CreatePgDatabaseOptions {
  /** Name prefix, [a-z0-9_]; default `sluice_test`. */
  prefix?: string;
}

export interface PgDatabase extends AsyncDisposable {
  /** Connection URL of the new database (same server and user as the admin URL). */
  readonly url: string;
  readonly name: string;
  /** Terminates other connections, then drops the database. Safe to call twice. */
  drop(): Promise<void>;
}

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The admin connection URL: env `PG_ADMIN_URL` or the local trust-auth default. */
export function pgAdminUrl(): string {
  return process.env.PG_ADMIN_URL || DEFAULT_ADMIN_URL;
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const client = new pg.Client({
    connectionString: pgAdminUrl(),
    connectionTimeoutMillis: timeoutMs,
  });
  client.on('error', () => {
    // a terminated admin connection must not crash the test process
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** True when the admin URL accepts a connection and answers `SELECT 1` within about 1 s. */
export async function pgAvailable(): Promise<boolean> {
  try {
    return await withAdmin(async (client) => {
      const result = await client.query('SELECT 1 AS ok');
      return result.rows.length === 1;
    }, 1_000);
  } catch {
    return false;
  }
}

async function dropDatabase(name: string): Promise<void> {
  await withAdmin(async (client) => {
    // FORCE (PostgreSQL 13+) also refuses no connection; the explicit terminate covers pools that
    // reconnect between the two statements.
    await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

export async function createPgDatabase(opts: CreatePgDatabaseOptions = {}): Promise<PgDatabase> {
  const prefix = opts.prefix ?? 'sluice_test';
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
    throw new Error(
      `createPgDatabase: prefix must match [a-z_][a-z0-9_]*, got ${JSON.stringify(prefix)}`,
    );
  }
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const adminUrl = pgAdminUrl();
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  // A test run that dies without dropping would leak databases; psql is synchronous, so it can run
  // inside the 'exit' hook. Best effort: ignored if psql is missing.
  const unregister = onProcessExit(() => {
    spawnSync('psql', [adminUrl, '-qc', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`], {
      stdio: 'ignore',
      timeout: 5_000,
    });
  });
  let dropped: Promise<void> | undefined;
  const drop = () => {
    dropped ??= dropDatabase(name).then(unregister, (error: unknown) => {
      dropped = undefined;
      throw error;
    });
    return dropped;
  };
  return {
    url: databaseUrl(adminUrl, name),
    name,
    drop,
    [Symbol.asyncDispose]: drop,
  };
}
