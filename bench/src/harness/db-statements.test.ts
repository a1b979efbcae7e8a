// The per-job statement figures are only as good as this counter: it must see every statement a
// child sends, on both drivers, however the statement is sent (prepared, multi-statement text,
// inside better-sqlite3's own transactions, through a pool), and count each round trip once.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createPgDatabase, pgAvailable, type PgDatabase } from '@sluice/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { countsSince, installStatementCounter, pgStatementsIn } from './db-statements.js';

const read = installStatementCounter();

describe('statement counter', () => {
  it('counts every SQLite statement, a native transaction’s BEGIN and COMMIT included', () => {
    const db = new SQLite(':memory:');
    try {
      const before = read();
      db.exec('create table t (x integer); create index t_x on t (x)');
      const insert = db.prepare('insert into t values (?)');
      // BEGIN IMMEDIATE, 2 inserts, SAVEPOINT, 1 insert, RELEASE, COMMIT.
      db.transaction(() => {
        insert.run(1);
        insert.run(2);
        db.transaction(() => insert.run(3))();
      }).immediate();
      const row = db.prepare('select count(*) as n from t').get() as { n: number };
      expect(row.n).toBe(3);
      expect(countsSince(before, read())).toEqual({
        pgStatements: 0,
        pgRoundTrips: 0,
        sqliteStatements: 2 + 7 + 1,
      });
    } finally {
      db.close();
    }
  });

  it('tells one statement from several the way pg picks its protocol', () => {
    expect(pgStatementsIn(['select $1::int', [1]])).toBe(1);
    expect(pgStatementsIn([{ name: 'x', text: 'select 1; select 2' }])).toBe(1);
    expect(pgStatementsIn(['begin; select 1; commit;'])).toBe(3);
    expect(pgStatementsIn(['begin; select 1; commit', []])).toBe(3);
    expect(pgStatementsIn(['select 1'])).toBe(1);
  });

  describe('PostgreSQL', () => {
    let db: PgDatabase | undefined;
    afterAll(async () => db?.drop());

    it('counts one round trip per query call, pool queries included', async (t) => {
      if (!(await pgAvailable())) return t.skip();
      db = await createPgDatabase({ prefix: 'sluice_bench_counter' });
      const pool = new pg.Pool({ connectionString: db.url, max: 1 });
      try {
        await pool.query('select 1'); // connect outside the counted window
        const before = read();
        await pool.query('select $1::int as n', [1]);
        await pool.query('begin; select 1; commit');
        await pool.query({ name: 'bench_counter_1', text: 'select 2 as n' });
        await pool.query({ name: 'bench_counter_1', text: 'select 2 as n' });
        expect(countsSince(before, read())).toEqual({
          pgStatements: 1 + 3 + 1 + 1,
          pgRoundTrips: 4,
          sqliteStatements: 0,
        });
      } finally {
        await pool.end();
      }
    });
  });
});
