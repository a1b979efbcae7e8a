// claimJobs on SQLite and PostgreSQL: the shared cases (claim-jobs.case.ts, also run on D1 in
// workerd) plus the race between two real processes, which only the Node run can start.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnNode } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { claimJobsCases, queuedJobs } from './claim-jobs.case.js';
import { isoIn, isoNow } from '../json.js';
import { PG_CLAIM_SQL } from './claim-jobs.js';
import { fairClaimCases, tenantJobs } from './fair-claim.case.js';

describeEachDialect('claimJobs (the jobs table is the embedded queue)', (ctx, dialect) => {
  claimJobsCases(dialect, ctx);

  it('two processes claiming the same 200 jobs never share one', async () => {
    const test = ctx();
    const ids = await queuedJobs(test.database, 'demo.race', 200, { maxAttempts: 1 });
    const entry = fileURLToPath(new URL('../testing/claim-child.ts', import.meta.url));
    const goFile = join(mkdtempSync(join(tmpdir(), 'sluice-race-')), 'go');
    const children = await Promise.all(
      ['a', 'b'].map((owner) =>
        spawnNode(entry, {
          env: { DB_URL: test.url, OWNER: owner, GO_FILE: goFile },
          readyLine: /READY/,
          readyTimeoutMs: 30_000,
        }),
      ),
    );
    try {
      writeFileSync(goFile, 'go');
      const [a, b] = (await Promise.all(
        children.map(async (c) => {
          const m = await c.waitForLine(/RESULT (.*)/, 60_000);
          return JSON.parse(m[1] as string) as { claimed: string[] };
        }),
      )) as [{ claimed: string[] }, { claimed: string[] }];
      // a real race: both processes got work, and never the same job
      expect(a.claimed.length).toBeGreaterThan(0);
      expect(b.claimed.length).toBeGreaterThan(0);
      expect(a.claimed.filter((id) => b.claimed.includes(id))).toEqual([]);
      expect([...a.claimed, ...b.claimed].sort()).toEqual([...ids].sort());
    } finally {
      await Promise.all(children.map((c) => c.stop()));
    }
  }, 90_000);
});

// Its own database: the aging case needs no other suite's queued rows above level 0.
describeEachDialect('claimJobs is fair across tenants', (ctx, dialect) => {
  fairClaimCases(dialect, ctx);
});

describeEachDialect('the PostgreSQL claim', (ctx) => {
  it('locks only the rows it hands out: the walk over fair candidates stops at the limit', async (t) => {
    const test = ctx();
    const pool = test.database.pgPool;
    if (!pool) return t.skip('row locks of the claim statement: PostgreSQL only');
    // 3 tenants × 20: the fair candidates (up to the limit per tenant) outnumber the limit.
    for (const tenant of ['t-a', 't-b', 't-c'])
      await tenantJobs(test.database, 'lock.walk', tenant, 20);
    const holder = await pool.connect();
    const other = await pool.connect();
    try {
      await holder.query('begin');
      const claimed = await holder.query(PG_CLAIM_SQL, [
        ['lock.walk'],
        ['v1'],
        isoNow(),
        null,
        5,
        isoIn(60_000),
        'w1',
        [],
      ]);
      expect(claimed.rowCount).toBe(5);
      // Held until the claim's transaction ends: every other queued row must still be free.
      const free = await other.query(
        `select count(*)::int as n from (select id from jobs where kind = 'lock.walk'
          and state = 'queued' for update skip locked) s`,
      );
      expect(free.rows[0]).toEqual({ n: 55 });
    } finally {
      await holder.query('rollback');
      holder.release();
      other.release();
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
      const explained = await client.query(
        `explain (analyze, buffers, format json) ${PG_CLAIM_SQL}`,
        [['stale.walk'], ['v1'], isoNow(), null, 64, isoIn(60_000), 'w1', []],
      );
      // json comes back as text on Sluice's pools (as on SQLite).
      const raw = (explained.rows[0] as { 'QUERY PLAN': string })['QUERY PLAN'];
      const plan = (JSON.parse(raw) as [{ Plan: Record<string, number> }])[0].Plan;
      const buffers = (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
      expect(buffers).toBeLessThan(BUFFER_BOUND);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});
