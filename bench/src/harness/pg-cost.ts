// Per-job cost, server side: the bench database's `pg_stat_database` counters (commits, row
// writes) and the cluster's WAL position, read before `go` and again once the run has ended in
// the children. Read from the maintenance database, so the reads are not the bench database's
// commits.
//
// Why after the children ended, not at the clock: PostgreSQL 15 backends publish their counters
// at most once a second while busy (pgstat's PGSTAT_MIN_INTERVAL), so a read at the clock would
// miss up to a second of a 2–6 s window. A backend publishes everything when it exits, before it
// leaves pg_stat_activity, and the children close their pools when the run ends: the probe waits
// until no backend of a child (application_name CHILD_APPLICATION_NAME, set for every child by
// children.ts) is left (pg's Pool.end() does not wait for that). The per-job figures therefore
// divide by the jobs the children completed up to their close (RunReport.jobs), after the clock
// too.
import pg from 'pg';
import type { BenchAdapter, BenchServices } from '../adapter.js';
import {
  readTableCounters,
  STATS_APPLICATION_NAME,
  tableWritesPerJob,
  type TableCounters,
} from './pg-tables.js';
import type { RunReport } from './protocol.js';

export interface PgCounters {
  commits: number;
  rollbacks: number;
  inserted: number;
  updated: number;
  deleted: number;
  /** pg_current_wal_lsn() as a byte position (the whole cluster's WAL). */
  walLsn: bigint;
  /** Per-table counters of the bench database (pg-tables.ts). */
  tables: TableCounters;
}

/** PGAPPNAME of every forked child, so its backends can be told from the parent's. */
export const CHILD_APPLICATION_NAME = 'sluice-bench-child';

const GONE_POLL_MS = 10;
const GONE_TIMEOUT_MS = 10_000;

export interface PgCostProbe {
  /** The counters at the window's start (`before`) or end (`after`). */
  sample(when: 'before' | 'after'): Promise<PgCounters>;
  /**
   * True once no child's backend is connected to the database (all published their counters);
   * false if some are still there after 10 s (then the database figures are left out).
   */
  childrenGone(): Promise<boolean>;
  close(): Promise<void>;
}

/** `X/Y` (two hex halves) → the byte position. */
export function parseLsn(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  if (high === undefined || low === undefined) throw new Error(`bad LSN ${lsn}`);
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export async function openPgCostProbe(
  adminUrl: string,
  database: string,
  url: string,
): Promise<PgCostProbe> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined);
  await client.connect();
  const gone = async (applicationName: string) => {
    const deadline = Date.now() + GONE_TIMEOUT_MS;
    for (;;) {
      const result = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
        [database, applicationName],
      );
      if (result.rows[0]?.n === '0') return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, GONE_POLL_MS));
    }
  };
  const counters = async (): Promise<Omit<PgCounters, 'tables'>> => {
    const result = await client.query<{
      commits: string;
      rollbacks: string;
      inserted: string;
      updated: string;
      deleted: string;
      lsn: string;
    }>(
      `SELECT xact_commit AS commits, xact_rollback AS rollbacks, tup_inserted AS inserted,
                tup_updated AS updated, tup_deleted AS deleted, pg_current_wal_lsn()::text AS lsn
         FROM pg_stat_database WHERE datname = $1`,
      [database],
    );
    const row = result.rows[0];
    if (!row) throw new Error(`pg_stat_database has no row for ${database}`);
    return {
      commits: Number(row.commits),
      rollbacks: Number(row.rollbacks),
      inserted: Number(row.inserted),
      updated: Number(row.updated),
      deleted: Number(row.deleted),
      walLsn: parseLsn(row.lsn),
    };
  };
  return {
    async sample(when) {
      // The stats connection's one commit must fall outside the window: before it, read the
      // tables first and wait for that backend to exit (publishing its counters); after it, read
      // the database counters first.
      if (when === 'after') return { ...(await counters()), tables: await readTableCounters(url) };
      const tables = await readTableCounters(url);
      await gone(STATS_APPLICATION_NAME);
      return { ...(await counters()), tables };
    },
    childrenGone: () => gone(CHILD_APPLICATION_NAME),
    close: () => client.end().catch(() => undefined),
  };
}

/** The per-job figures of one run and the raw counts they come from (a run's `detail.cost`). */
export interface RunCost {
  metrics: Record<string, number>;
  detail: Record<string, unknown>;
}

function sum(reports: readonly (RunReport | undefined)[]) {
  const out = { jobs: 0, reported: 0, pgStatements: 0, pgRoundTrips: 0, sqliteStatements: 0 };
  for (const r of reports) {
    if (!r) continue;
    out.reported++;
    out.jobs += r.jobs;
    out.pgStatements += r.statements.pgStatements;
    out.pgRoundTrips += r.statements.pgRoundTrips;
    out.sqliteStatements += r.statements.sqliteStatements;
  }
  return out;
}

/**
 * Per completed job: statements and round trips the consumers sent (and, in latency runs, the
 * producer's apart), plus, when both database samples exist, commits, row writes and WAL bytes
 * between them (these include the producer's writes: all of the bench database's work).
 */
export function runCost(
  consumers: readonly (RunReport | undefined)[],
  producers: readonly (RunReport | undefined)[],
  db?: { before: PgCounters; after: PgCounters } | { missing: string },
): RunCost | undefined {
  const c = sum(consumers);
  if (c.reported < consumers.length || c.jobs === 0) return undefined;
  const metrics: Record<string, number> = {};
  const detail: Record<string, unknown> = {
    jobs: c.jobs,
    window: 'go → every child closed its run',
    consumers: {
      pgStatements: c.pgStatements,
      pgRoundTrips: c.pgRoundTrips,
      sqliteStatements: c.sqliteStatements,
    },
  };
  const statements = c.pgStatements + c.sqliteStatements;
  if (statements > 0) metrics.statementsPerJob = statements / c.jobs;
  if (c.pgRoundTrips > 0) metrics.roundTripsPerJob = c.pgRoundTrips / c.jobs;
  if (producers.length > 0) {
    const p = sum(producers);
    detail.producer = {
      jobs: p.jobs,
      pgStatements: p.pgStatements,
      pgRoundTrips: p.pgRoundTrips,
      sqliteStatements: p.sqliteStatements,
    };
    const producerStatements = p.pgStatements + p.sqliteStatements;
    if (producerStatements > 0) metrics.producerStatementsPerJob = producerStatements / c.jobs;
    if (p.pgRoundTrips > 0) metrics.producerRoundTripsPerJob = p.pgRoundTrips / c.jobs;
  }
  if (db && 'missing' in db) detail.database = db.missing;
  else if (db) {
    const { before, after } = db;
    const commits = after.commits - before.commits;
    const rowWrites =
      after.inserted -
      before.inserted +
      (after.updated - before.updated) +
      (after.deleted - before.deleted);
    const walBytes = Number(after.walLsn - before.walLsn);
    Object.assign(metrics, {
      commitsPerJob: commits / c.jobs,
      rowWritesPerJob: rowWrites / c.jobs,
      walBytesPerJob: walBytes / c.jobs,
    });
    detail.database = {
      commits,
      rollbacks: after.rollbacks - before.rollbacks,
      inserted: after.inserted - before.inserted,
      updated: after.updated - before.updated,
      deleted: after.deleted - before.deleted,
      walBytesClusterWide: walBytes,
      tablesPerJob: tableWritesPerJob(before.tables, after.tables, c.jobs),
    };
  }
  return { metrics, detail };
}

/**
 * The probe for a run of `adapter`, or undefined when its figures would not be its own (no
 * `databaseCost` flag) or it runs without PostgreSQL.
 */
/** Reads the database after a run, once the children's backends are gone. */
export async function databaseAfter(
  probe: PgCostProbe | undefined,
  before: PgCounters | undefined,
): Promise<{ before: PgCounters; after: PgCounters } | { missing: string } | undefined> {
  if (!probe || !before) return undefined;
  if (!(await probe.childrenGone()))
    return { missing: 'left out: child backends still connected 10 s after the run ended' };
  return { before, after: await probe.sample('after') };
}

export async function costProbeFor(
  adapter: BenchAdapter,
  services: BenchServices,
): Promise<PgCostProbe | undefined> {
  if (!adapter.queue?.databaseCost || !adapter.needs.includes('postgres') || !services.pg)
    return undefined;
  return openPgCostProbe(services.pg.adminUrl, services.pg.name, services.pg.url);
}
