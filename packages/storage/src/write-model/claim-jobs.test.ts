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
import { PG_CLAIM_SQL } from '../dialect/postgres/claim-jobs.js';
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
