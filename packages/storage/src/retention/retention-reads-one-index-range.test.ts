// The sweep's reads stay index probes at any table size: the group scan probes `jobs_retention`
// once per group and the candidate read walks one range of it, with no sort and no scan (a sort
// would read a group's whole backlog on every batch; an `in (…)` list of states in the query is
// what once made SQLite sort). Checked on the plans, not on timings. PostgreSQL's planner picks
// a bitmap scan and a sort for a range it estimates small, as here (a backlog's range is large,
// and then the limit makes it walk the index): there only the index and no scan are asserted.
import { RETENTION_STATES } from '@sluice/contracts';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { candidatesSql, groupsSql } from './retention-sql.js';

describeEachDialect('retention reads', (ctx, dialect) => {
  it('probe and walk jobs_retention, never sorting or scanning', async () => {
    const db = ctx().database.db;
    const series =
      dialect === 'postgres'
        ? sql`select g as x from generate_series(1, 3000) g`
        : sql`with recursive s(x) as (select 1 union all select x + 1 from s where x < 3000) select x from s`;
    await sql`insert into jobs (id, tenant_id, kind, version, state, input, input_hash, file_ids,
        max_attempts, created_at, updated_at)
      select 'j' || x, 't' || (x % 20), 'k.' || (x % 3), 'v1',
        case when x % 5 = 0 then 'running' else 'succeeded' end, '{}', 'h', '[]', 3,
        '2020-01-01', '2020-01-0' || (1 + x % 9) from (${series}) as n`.execute(db);
    await sql.raw(dialect === 'postgres' ? 'analyze jobs' : 'analyze').execute(db);
    const plan = async (q: { sql: string }) => {
      const text = dialect === 'postgres' ? 'explain (costs off) ' : 'explain query plan ';
      const r = await sql.raw<Record<string, string>>(text + q.sql).execute(db);
      return r.rows.map((row) => row['QUERY PLAN'] ?? row.detail ?? '').join('\n');
    };
    const cutoff = '2020-01-05';
    for (const state of RETENTION_STATES) {
      const groups = await plan(groupsSql(state).compile(db));
      const reads = await plan(
        candidatesSql(state, [{ kind: 'k.1', tenantId: 't1', cutoff }], 50).compile(db),
      );
      for (const p of [groups, reads]) {
        expect(p).toContain('jobs_retention');
        expect(p).not.toMatch(/Seq Scan|SCAN jobs/);
        if (dialect === 'sqlite') expect(p).not.toMatch(/TEMP B-TREE/);
      }
    }
  });
});
