// What every durable engine on PostgreSQL (pg-boss, DBOS, Absurd) needs in the parent, so each
// gets exactly the treatment Sluice's and graphile-worker's tables get (README, "Tables"):
// before every run its tables are emptied (TRUNCATE) and VACUUM ANALYZEd, after the prefill they
// are ANALYZEd again. Each engine lives in its own schema of the suite's database (`pgboss`,
// `dbos`, `absurd`), so no engine sees another's rows.
//
// The parent's connections must not leak into the measured window: the prefill connection is
// closed and the parent waits until its backends are gone (a backend publishes its statistics
// when it exits, and at most once a second while it lives), so the window's pg_stat_database
// figures hold the engine's run only. The settle poll (the time the last completion was durable)
// runs in ONE read-only transaction: at most one commit and no row write of its own in the window.
import pg from 'pg';
import { monoMs } from '../harness/clock.js';

/** application_name of the parent's prefill, settle and verify connections. */
export const PARENT_APPLICATION_NAME = 'sluice-bench-parent';

const GONE_TIMEOUT_MS = 10_000;
const SETTLE_POLL_MS = 20;

export interface EngineDatabase {
  /** The suite database. */
  url: string;
  /** Its name, and the maintenance database's URL (to watch its backends from outside). */
  name: string;
  adminUrl: string;
}

function parentPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    application_name: PARENT_APPLICATION_NAME,
  });
  pool.on('error', () => undefined);
  return pool;
}

/** Waits until no backend of the parent's is connected to the suite database. */
async function parentGone(db: EngineDatabase): Promise<void> {
  const admin = new pg.Client({ connectionString: db.adminUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const deadline = Date.now() + GONE_TIMEOUT_MS;
    for (;;) {
      const result = await admin.query<{ n: string }>(
        'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
        [db.name, PARENT_APPLICATION_NAME],
      );
      if (result.rows[0]?.n === '0' || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/**
 * Runs `fn` on a pool of the parent's (untimed work: migrate, empty, prefill), then closes the
 * pool and waits until its backends have exited and published their statistics.
 */
export async function withParentPool<T>(
  db: EngineDatabase,
  fn: (pool: pg.Pool) => Promise<T>,
  max = 4,
): Promise<T> {
  const pool = parentPool(db.url, max);
  try {
    return await fn(pool);
  } finally {
    await pool.end().catch(() => undefined);
    await parentGone(db);
  }
}

/** TRUNCATE the run's tables, then VACUUM ANALYZE every table the engine reads. */
export async function emptyTables(
  pool: pg.Pool,
  truncate: readonly string[],
  vacuum: readonly string[],
): Promise<void> {
  if (truncate.length > 0) await pool.query(`TRUNCATE ${truncate.join(', ')}`);
  await pool.query(`VACUUM ANALYZE ${vacuum.join(', ')}`);
}

/** Fresh planner statistics of the prefilled queue. */
export async function analyzeTables(pool: pg.Pool, tables: readonly string[]): Promise<void> {
  await pool.query(`ANALYZE ${tables.join(', ')}`);
}

/** Every table of `schema`, qualified (the engines create more than the bench names). */
export async function schemaTables(pool: pg.Pool, schema: string): Promise<string[]> {
  const result = await pool.query<{ name: string }>(
    `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) AS name
     FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`,
    [schema],
  );
  return result.rows.map((r) => r.name);
}

/** Milliseconds since the epoch (an engine's completion timestamp) on the monotonic clock. */
export function epochToMono(epochMs: number): number {
  return monoMs() - (Date.now() - epochMs);
}

/**
 * The settle step of a drain: polls `query` (one row: `done`, the completed jobs, and `last_ms`,
 * the engine's own timestamp of its latest completion in epoch ms) until `expected` jobs are done,
 * inside one READ ONLY transaction (READ COMMITTED: every poll sees the latest commits), and
 * resolves with that timestamp on the monotonic clock. The children report a job when its handler
 * returns; the engine records it durably a little later, and the run ends there.
 */
export function settleByTimestamp(
  db: EngineDatabase,
  query: string,
  expected: number,
): () => Promise<number> {
  return async () => {
    const client = new pg.Client({
      connectionString: db.url,
      application_name: PARENT_APPLICATION_NAME,
    });
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.query('BEGIN READ ONLY');
      for (;;) {
        const result = await client.query<{ done: string; last_ms: string | null }>(query);
        const row = result.rows[0];
        if (row && Number(row.done) >= expected && row.last_ms !== null) {
          await client.query('COMMIT');
          return epochToMono(Number(row.last_ms));
        }
        await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  };
}

/** Counts per state after the run, on a connection of its own (after the window). */
export async function countStates(
  db: EngineDatabase,
  query: string,
): Promise<Record<string, number>> {
  const client = new pg.Client({
    connectionString: db.url,
    application_name: PARENT_APPLICATION_NAME,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const result = await client.query<{ state: string; n: string }>(query);
    const out: Record<string, number> = {};
    for (const r of result.rows) out[r.state] = Number(r.n);
    return out;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The end-state check every engine shares: all `jobs` there, none in a failed state, every job
 * done, or, when the clock capped the run, at least the completions the children reported.
 */
export function checkStates(
  states: Record<string, number>,
  doneState: string,
  failedStates: readonly string[],
  expected: { jobs: number; completed: number },
): { ok: boolean } & Record<string, unknown> {
  const jobs = Object.values(states).reduce((a, b) => a + b, 0);
  const done = states[doneState] ?? 0;
  const failed = failedStates.reduce((sum, state) => sum + (states[state] ?? 0), 0);
  const capped = expected.completed < expected.jobs;
  const ok =
    jobs === expected.jobs && failed === 0 && (capped ? done >= expected.completed : done === jobs);
  return { ok, capped, expected, jobs, done, failed, states };
}
