// Catches a claim that hands out one tenant's backlog before another tenant's later job of the
// same priority (no round-robin), that lets fairness override priority, or an aging sweep that
// lifts a backlog above other tenants' newer jobs when nothing queued outranks it.
import { formatJobId } from '@sluice/contracts';
import { expect } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { acceptJobs } from '../repos/accept-jobs.js';
import { getJobById } from '../repos/jobs.js';
import { suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { ageQueuedJobs } from './age-queued.js';
import { claimJobs } from './claim-jobs.js';

/** `n` queued jobs of `tenant`, written as the accept path writes them (one batch). */
export async function tenantJobs(
  database: SluiceDatabase,
  kind: string,
  tenant: string,
  n: number,
  priority = 0,
  now = Date.now(),
): Promise<string[]> {
  const ids = Array.from({ length: n }, () => formatJobId('v1'));
  await acceptJobs(
    database,
    ids.map((id) => ({
      id,
      tenantId: tenant,
      kind,
      version: 'v1',
      input: {},
      inputHash: 'h',
      maxAttempts: 3,
      priority,
      outcome: { to: 'queued' as const },
    })),
    now,
  );
  return ids;
}

const claim = (database: SluiceDatabase, kind: string, limit: number) =>
  claimJobs(database, { versions: [{ kind, version: 'v1' }], owner: 'w1', leaseMs: 60_000, limit });

const tenantOf = async (database: SluiceDatabase, id: string) =>
  (await getJobById(database.db, id))?.tenantId;

/** The suite, for every database (claim-jobs.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function fairClaimCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);

  it("another tenant's later job is in the first claim batch, behind a 2,000-job backlog", async () => {
    const { database } = ctx();
    const t0 = Date.now() - 10_000;
    await tenantJobs(database, 'f.backlog', 'tenant-a', 2_000, 0, t0);
    const [b] = await tenantJobs(database, 'f.backlog', 'tenant-b', 1, 0, t0 + 5_000);
    const first = await claim(database, 'f.backlog', 8);
    expect(first).toHaveLength(8);
    expect(first.map((c) => c.job.id)).toContain(b);
    // The rest of the batch is tenant A's oldest work, in order.
    expect(first.filter((c) => c.job.id !== b).every((c) => c.job.tenantId === 'tenant-a')).toBe(
      true,
    );
  });

  it('round-robin across tenants within a priority level; higher priority still first', async () => {
    const { database } = ctx();
    const t0 = Date.now() - 10_000;
    const a = await tenantJobs(database, 'f.rr', 'tenant-a', 5, 0, t0);
    const b = await tenantJobs(database, 'f.rr', 'tenant-b', 2, 0, t0 + 1_000);
    const [urgent] = await tenantJobs(database, 'f.rr', 'tenant-c', 1, 5, t0 + 2_000);
    // A tenant's jobs written in one batch share created_at: which of them goes first is open,
    // how many of each tenant's go in each claim is the rule.
    const batches: string[][] = [];
    for (const limit of [1, 4, 3]) {
      const got = await claim(database, 'f.rr', limit);
      batches.push(
        got.map((c) => (a.includes(c.job.id) ? 'a' : b.includes(c.job.id) ? 'b' : c.job.id)).sort(),
      );
    }
    expect(batches).toEqual([[urgent], ['a', 'a', 'b', 'b'], ['a', 'a', 'a']]);
    expect(await tenantOf(database, urgent as string)).toBe('tenant-c');
  });

  it('aging leaves a level alone when nothing queued outranks it (a backlog cannot overtake)', async () => {
    const { database } = ctx();
    const t0 = Date.now() - 600_000;
    const [old] = await tenantJobs(database, 'f.age', 'tenant-a', 1, 0, t0);
    // Run in its own database (claim-jobs.test.ts): nothing else queued outranks level 0.
    expect(await ageQueuedJobs(database, 60_000, t0 + 120_000)).toBe(0);
    expect((await getJobById(database.db, old as string))?.priority).toBe(0);
    const [hi] = await tenantJobs(database, 'f.age', 'tenant-b', 1, 2, t0);
    await ageQueuedJobs(database, 60_000, t0 + 120_000);
    expect((await getJobById(database.db, old as string))?.priority).toBe(1);
    expect((await getJobById(database.db, hi as string))?.priority).toBe(2);
  });
  done();
}
