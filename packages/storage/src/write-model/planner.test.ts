// How PostgreSQL plans the write model's hot statements when its statistics or cached plans are
// out of date: a queue analysed while (nearly) idle, then a burst.
//
// Stale statistics: with statistics taken while no job was queued, the claim's row-lock walk
// could scan the queued partial index once per candidate instead of looking the row up by key.
//
// Cached plans: the statements are named (parsed once per connection), and PostgreSQL may then
// cache ONE generic plan for a name and use it from the sixth run on, with the row estimates of
// the moment it was made. Made while `jobs` held a few dozen rows, the terminal write's and the
// admission read's plans scan the whole table; kept once a burst of 20,000 jobs landed, every
// 64-job terminal write read all of it (~100 ms; auto_explain in the bench's fairness row, where
// B's dispatch→start went from ~13 ms to 350-670 ms p50 in such rounds) until autovacuum's next
// ANALYZE. Sluice's connections plan every run with its parameters and the table's current size
// (`plan_cache_mode = force_custom_plan`, dialect/postgres/open-postgres.ts). The claim depends on
// that setting too: its walk probes by key, but a generic plan made at 50 jobs scanned `jobs` three
// times once it held 20,000 (this test with `force_generic_plan` set on its connection).
import type pg from 'pg';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { isoIn, isoNow } from '../json.js';
import { WRITE_ATTEMPTS_SQL, writeAttemptsSql } from '../dialect/postgres/attempt-write.js';
import { PG_CLAIM_SQL } from '../dialect/postgres/claim-jobs.js';
import { PG_SNAPSHOTS_SQL } from '../dialect/postgres/postgres-dialect.js';
import { tenantJobs } from './fair-claim.case.js';

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
};

/** Every relation the plan reads with a sequential scan. */
function seqScans(node: PlanNode): string[] {
  const own = node['Node Type'] === 'Seq Scan' ? [node['Relation Name'] ?? '?'] : [];
  return [...own, ...(node.Plans ?? []).flatMap(seqScans)];
}

/** Every node of the plan, depth first. */
function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The top node of `explain (<options>, format json) <sql>`. */
async function planOf(
  client: pg.PoolClient,
  sql: string,
  { options = '', values = [] }: { options?: string; values?: unknown[] } = {},
): Promise<PlanNode> {
  const r = await client.query(
    `explain (${options ? `${options}, ` : ''}format json) ${sql}`,
    values,
  );
  // json comes back as text on Sluice's pools (as on SQLite).
  const raw = (r.rows[0] as { 'QUERY PLAN': string })['QUERY PLAN'];
  return (JSON.parse(raw) as [{ Plan: PlanNode }])[0].Plan;
}

describeEachDialect('named statements planned while jobs was small', (ctx) => {
  it('the terminal write, the claim and the admission read scan no table after jobs grew from 50 rows to 20,000', async (t) => {
    const test = ctx();
    const pool = test.database.pgPool;
    if (!pool) return t.skip('plan caching: PostgreSQL only');
    await tenantJobs(test.database, 'plan.grow', 't-b', 50);
    await pool.query('vacuum analyze jobs');
    const client = await pool.connect();
    try {
      await client.query(`prepare sluice_test_write (json, text) as ${WRITE_ATTEMPTS_SQL}`);
      // The form a round without outbox rows or units is sent in (a Streams drain's).
      const slim = writeAttemptsSql({ outbox: false, units: false });
      await client.query(`prepare sluice_test_write_slim (json, text) as ${slim}`);
      await client.query(`prepare sluice_test_claim as ${PG_CLAIM_SQL}`);
      await client.query(`prepare sluice_test_read as ${PG_SNAPSHOTS_SQL}`);
      const lit = (v: string) => client.escapeLiteral(v);
      const write = (ids: string[], name = 'sluice_test_write') =>
        `execute ${name}(${lit(JSON.stringify(ids.map((id) => ({ id }))))}, ${lit(isoNow())})`;
      const read = (ids: string[]) =>
        `execute sluice_test_read(array[${ids.map(lit).join(', ')}]::text[])`;
      // The claim reads, locks and moves nothing here: it serves a kind with no queued job.
      const claim = `execute sluice_test_claim(array['plan.none'], array['v1'], ${lit(isoNow())},
        null, 64, ${lit(isoIn(60_000))}, 'w1', array[]::text[])`;
      // Past the five runs after which a generic plan may be cached. Fenced on nothing: no write.
      for (let i = 0; i < 8; i++) {
        await client.query(write(['none']));
        await client.query(write(['none'], 'sluice_test_write_slim'));
        await client.query(claim);
        await client.query(read(['none']));
      }
      const grown = await tenantJobs(test.database, 'plan.grow', 't-a', 20_000);
      const batch = grown.slice(0, 64);
      const plans = {
        write: seqScans(await planOf(client, write(batch))),
        writeSlim: seqScans(await planOf(client, write(batch, 'sluice_test_write_slim'))),
        claim: seqScans(await planOf(client, claim)),
        read: seqScans(await planOf(client, read(batch))),
      };
      expect(plans).toEqual({ write: [], writeSlim: [], claim: [], read: [] });
    } finally {
      await client.query('deallocate all');
      client.release();
    }
  });
});

// A 64-job claim at 5,000 queued jobs reads ~1,100 buffers when it probes each candidate by key,
// ~8,400 when it scans the queued index once per candidate: the bound sits between.
const BUFFER_BOUND = 3_000;

describeEachDialect('the PostgreSQL claim on stale statistics', (ctx) => {
  it('looks each candidate up by key even when the statistics saw no queued job (a burst into a table analysed near-empty)', async (t) => {
    const test = ctx();
    const pool = test.database.pgPool;
    if (!pool) return t.skip('planner statistics: PostgreSQL only');
    // Statistics over 50 finished jobs and none queued, then a backlog lands.
    await tenantJobs(test.database, 'stale.walk', 't-b', 50);
    await pool.query(`update jobs set state = 'succeeded' where kind = 'stale.walk'`);
    await pool.query('vacuum analyze jobs');
    await tenantJobs(test.database, 'stale.walk', 't-a', 5_000);
    const client = await pool.connect();
    try {
      await client.query('begin');
      const plan = await planOf(client, PG_CLAIM_SQL, {
        options: 'analyze, buffers',
        values: [['stale.walk'], ['v1'], isoNow(), null, 64, isoIn(60_000), 'w1', []],
      });
      const buffers = (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
      expect(buffers).toBeLessThan(BUFFER_BOUND);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});

describeEachDialect('the admission read on a custom plan', (ctx) => {
  it('probes jobs by primary key with the ids as one parameter, not a constant array of them', async (t) => {
    const test = ctx();
    const pool = test.database.pgPool;
    if (!pool) return t.skip('plan shape: PostgreSQL only');
    const ids = await tenantJobs(test.database, 'plan.read', 't-a', 2_000);
    await pool.query('vacuum analyze jobs');
    const client = await pool.connect();
    try {
      // The pool's own setting, planned per run as the product's named statement is.
      await client.query(`prepare sluice_test_read_ids as ${PG_SNAPSHOTS_SQL}`);
      const batch = ids.slice(0, 64);
      const arg = `array[${batch.map((id) => client.escapeLiteral(id)).join(', ')}]::text[]`;
      const plan = await planOf(client, `execute sluice_test_read_ids(${arg})`);
      // An index scan of the key, or a bitmap of it (at this size); never a scan of the table.
      expect(seqScans(plan)).toEqual([]);
      const nodes = nodesOf(plan);
      const probes = nodes.filter((n) => n['Index Name'] !== undefined);
      expect(probes.map((n) => n['Index Name'])).toEqual(['jobs_pkey']);
      // A constant array of the 64 ids is what the planner expanded id by id.
      const cond = probes[0]?.['Index Cond'] ?? '';
      expect(batch.filter((id) => cond.includes(id))).toEqual([]);
      const rows = await client.query(`execute sluice_test_read_ids(${arg})`);
      expect(rows.rowCount).toBe(64);
    } finally {
      await client.query('deallocate all');
      client.release();
    }
  });
});
