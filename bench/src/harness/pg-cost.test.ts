// The database side of the per-job cost: commits and row writes of ONE database, read from
// another, exact once the writer's connection closed (a backend publishes its counters on exit),
// and the arithmetic that turns the children's reports into per-job figures.
import pg from 'pg';
import { createPgDatabase, pgAdminUrl, pgAvailable, type PgDatabase } from '@sluice/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { CHILD_APPLICATION_NAME, openPgCostProbe, parseLsn, runCost } from './pg-cost.js';
import { tableWritesPerJob } from './pg-tables.js';
import type { RunReport } from './protocol.js';

const report = (jobs: number, pgStatements: number, pgRoundTrips: number): RunReport => ({
  jobs,
  statements: { pgStatements, pgRoundTrips, sqliteStatements: 0 },
});

describe('per-job cost', () => {
  it('reads an LSN as a byte position', () => {
    expect(parseLsn('0/10')).toBe(16n);
    expect(parseLsn('1/0')).toBe(2n ** 32n);
    expect(parseLsn('2A/FF') - parseLsn('2A/F0')).toBe(15n);
  });

  it('divides every count by the jobs all consumers completed, the producer apart', () => {
    const counters = (commits: number, rows: number, lsn: bigint) => ({
      commits,
      rollbacks: 0,
      inserted: rows,
      updated: rows,
      deleted: 0,
      walLsn: lsn,
      tables: {},
    });
    const cost = runCost([report(60, 30, 20), report(40, 20, 10)], [report(100, 200, 100)], {
      before: counters(10, 5, 1_000n),
      after: counters(60, 105, 401_000n),
    });
    expect(cost?.metrics).toEqual({
      statementsPerJob: 0.5,
      roundTripsPerJob: 0.3,
      producerStatementsPerJob: 2,
      producerRoundTripsPerJob: 1,
      commitsPerJob: 0.5,
      rowWritesPerJob: 2,
      walBytesPerJob: 4_000,
    });
    expect(cost?.detail).toMatchObject({ jobs: 100, database: { commits: 50, inserted: 100 } });
  });

  it('gives no figures when a child could not report (a partial count would read low)', () => {
    expect(runCost([report(10, 5, 5), undefined], [])).toBeUndefined();
    expect(runCost([report(0, 0, 0)], [])).toBeUndefined();
  });

  describe('PostgreSQL', () => {
    let db: PgDatabase | undefined;
    afterAll(async () => db?.drop());

    it('counts the bench database’s commits and row writes, not its own reads', async (t) => {
      if (!(await pgAvailable())) return t.skip();
      db = await createPgDatabase({ prefix: 'sluice_bench_cost' });
      const setup = new pg.Client({ connectionString: db.url });
      await setup.connect();
      await setup.query('create table t (x int)');
      await setup.end();
      const probe = await openPgCostProbe(pgAdminUrl(), db.name, db.url);
      try {
        const before = await probe.sample('before');
        const writer = new pg.Client({
          connectionString: db.url,
          application_name: CHILD_APPLICATION_NAME,
        });
        await writer.connect();
        for (const x of [1, 2, 3]) await writer.query('insert into t values ($1)', [x]);
        await writer.query('update t set x = x + 1 where x < 3');
        await writer.query('delete from t where x = 3');
        // A pool's end() does not wait for its backends: the probe does.
        const gone = probe.childrenGone();
        void writer.end();
        expect(await gone).toBe(true);
        const after = await probe.sample('after');
        expect(after.inserted - before.inserted).toBe(3);
        expect(after.updated - before.updated).toBe(2);
        expect(after.deleted - before.deleted).toBe(2);
        // 5 statements in autocommit; the session's start may add its own catalog transaction.
        // The probe's per-table reads (a connection to this database) stay outside the window.
        expect(after.commits - before.commits).toBeGreaterThanOrEqual(5);
        expect(after.commits - before.commits).toBeLessThanOrEqual(6);
        expect(after.walLsn).toBeGreaterThan(before.walLsn);
        // Per table, the same writes; two of the three inserted rows were updated once.
        const perJob = tableWritesPerJob(before.tables, after.tables, 1);
        expect(perJob).toEqual({
          'public.t': {
            inserted: 3,
            updated: 2,
            hotUpdated: perJob['public.t']?.hotUpdated,
            deleted: 2,
          },
        });
        expect(perJob['public.t']?.hotUpdated).toBeLessThanOrEqual(2);
        // Those reads did commit: after the window (the "after" read) and before the next one.
        const next = await probe.sample('before');
        expect(next.commits - after.commits).toBeGreaterThanOrEqual(2);
      } finally {
        await probe.close();
      }
    });
  });
});
