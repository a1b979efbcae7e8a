// Which branch of the PostgreSQL claim runs. One tenant with queued work: the claim reads that
// tenant's rows as one ordered range of the queued index (`g`), and the fair walk (`k`, which
// ranks candidates and probes each again by key) never runs. Several tenants: only the fair walk
// runs, also on statistics taken while no job was queued (the burst shape the stale-statistics
// test in planner.test.ts covers for one tenant).
import type pg from 'pg';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { isoIn, isoNow } from '../json.js';
import { PG_CLAIM_SQL } from '../dialect/postgres/claim-jobs.js';
import { tenantJobs } from './fair-claim.case.js';

type PlanNode = {
  'Node Type': string;
  'Subplan Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
};

/** The subtree of CTE `name` in an analysed plan. */
function cte(node: PlanNode, name: string): PlanNode | undefined {
  if (node['Subplan Name'] === `CTE ${name}`) return node;
  for (const child of node.Plans ?? []) {
    const found = cte(child, name);
    if (found) return found;
  }
  return undefined;
}

/** Rows the CTE handed out (0 when its one-time filter kept it from running). */
const rowsOf = (node: PlanNode | undefined) =>
  (node?.['Actual Rows'] ?? 0) * (node?.['Actual Loops'] ?? 0);

async function analysedClaim(pool: pg.Pool, kind: string): Promise<PlanNode> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const r = await client.query(`explain (analyze, buffers, format json) ${PG_CLAIM_SQL}`, [
      [kind],
      ['v1'],
      isoNow(),
      null,
      64,
      isoIn(60_000),
      'w1',
      [],
    ]);
    const raw = (r.rows[0] as { 'QUERY PLAN': string })['QUERY PLAN'];
    return (JSON.parse(raw) as [{ Plan: PlanNode }])[0].Plan;
  } finally {
    await client.query('rollback');
    client.release();
  }
}

describeEachDialect(
  'the PostgreSQL claim picks its branch by the tenants with queued work',
  (ctx) => {
    it('one tenant: one ordered range of the queued index, no fair walk', async (t) => {
      const test = ctx();
      const pool = test.database.pgPool;
      if (!pool) return t.skip('claim plan: PostgreSQL only');
      await tenantJobs(test.database, 'range.one', 't-a', 2_000);
      await pool.query('analyze jobs');
      const plan = await analysedClaim(pool, 'range.one');
      expect({ range: rowsOf(cte(plan, 'g')), fair: rowsOf(cte(plan, 'k')) }).toEqual({
        range: 64,
        fair: 0,
      });
    });

    it('two tenants on statistics that saw none queued: the fair walk alone, probing by key', async (t) => {
      const test = ctx();
      const pool = test.database.pgPool;
      if (!pool) return t.skip('claim plan: PostgreSQL only');
      await tenantJobs(test.database, 'range.two', 't-c', 50);
      await pool.query(`update jobs set state = 'succeeded' where kind = 'range.two'`);
      await pool.query('vacuum analyze jobs');
      await tenantJobs(test.database, 'range.two', 't-a', 5_000);
      await tenantJobs(test.database, 'range.two', 't-b', 5);
      const plan = await analysedClaim(pool, 'range.two');
      const buffers = (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
      expect({ range: rowsOf(cte(plan, 'g')), fair: rowsOf(cte(plan, 'k')) }).toEqual({
        range: 0,
        fair: 64,
      });
      // ~1,100 buffers when each candidate is probed by key, ~8,400 when the queued index is
      // scanned once per candidate (planner.test.ts).
      expect(buffers).toBeLessThan(3_000);
    });
  },
);
