// Catches a claim that hands one job to two holders, skips the fence (epoch, attempt id, lease),
// starts a job that is not due, not served or out of attempts, or lets a restarted owner wait
// for the lease it held itself.
import { formatJobId, PRIORITY_MAX } from '@sluice/contracts';
import { expect } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { isoIn } from '../json.js';
import { extendLeases, getJobById, insertJob, stillRunning, transitionJob } from '../repos/jobs.js';
import { queueStats } from '../repos/queue.js';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { ageQueuedJobs } from './age-queued.js';
import { claimJobs, type ClaimOptions } from './claim-jobs.js';

export async function queuedJobs(
  database: SluiceDatabase,
  kind: string,
  n: number,
  opts: { runAfter?: string; maxAttempts?: number; version?: string; priority?: number } = {},
): Promise<string[]> {
  const version = opts.version ?? 'v1';
  const ids = Array.from({ length: n }, () => formatJobId(version));
  await repoWrite(database, async (tx) => {
    for (const id of ids) {
      await insertJob(tx, {
        id,
        tenantId: 'acme',
        kind,
        version,
        input: { id },
        inputHash: 'h',
        maxAttempts: opts.maxAttempts ?? 3,
        priority: opts.priority,
      });
      await transitionJob(tx, { id, event: 'dispatch', runAfter: opts.runAfter ?? null });
    }
  });
  return ids;
}

const claim = (database: SluiceDatabase, kind: string, o: Partial<ClaimOptions> = {}) =>
  claimJobs(database, {
    versions: [{ kind, version: 'v1' }],
    owner: 'w1',
    leaseMs: 1000,
    limit: 10,
    ...o,
  });

/** The suite, for every database (claim-jobs.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function claimJobsCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
  it('starts queued jobs once: new epoch, attempt id and lease; last_seq left to the attempt', async () => {
    const { database } = ctx();
    const ids = await queuedJobs(database, 'c.once', 3);
    const t0 = Date.now();
    const first = await claim(database, 'c.once', { now: t0 });
    expect(first.map((c) => c.job.id).sort()).toEqual([...ids].sort());
    for (const c of first) {
      expect(c.from).toBe('queued');
      expect(c.job).toMatchObject({ state: 'running', epoch: 1, attempts: 1, lastSeq: 2 });
      expect(c.job.leaseOwner).toBe('w1');
      expect(c.job.leaseUntil).toBe(isoIn(1000, t0));
      expect(c.job.attemptId).toMatch(/^[0-9a-z]{16,}$/);
      expect(c.job.input).toEqual({ id: c.job.id });
    }
    expect(new Set(first.map((c) => c.job.attemptId)).size).toBe(3);
    // held: nobody gets them, not even the same owner without includeOwn
    expect(await claim(database, 'c.once', { owner: 'w2', now: t0 + 10 })).toEqual([]);
    expect(await claim(database, 'c.once', { now: t0 + 10 })).toEqual([]);
  });

  it('a restarted owner takes its own running jobs back at once; others wait for the lease', async () => {
    const { database } = ctx();
    const ids = await queuedJobs(database, 'c.own', 2);
    const t0 = Date.now();
    await claim(database, 'c.own', { leaseMs: 60_000, now: t0 });
    expect(await claim(database, 'c.own', { owner: 'w2', includeOwn: true, now: t0 })).toEqual([]);
    const own = await claim(database, 'c.own', { includeOwn: true, now: t0 + 5 });
    expect(own.map((c) => c.job.id).sort()).toEqual([...ids].sort());
    expect(
      own.every((c) => c.from === 'running' && c.job.epoch === 2 && c.job.attempts === 2),
    ).toBe(true);
    // past the lease another worker reclaims, with a new epoch
    const stolen = await claim(database, 'c.own', { owner: 'w2', now: t0 + 120_000, limit: 1 });
    expect(stolen).toHaveLength(1);
    expect(stolen[0]?.job).toMatchObject({ epoch: 3, attempts: 3, leaseOwner: 'w2' });
  });

  it('claims nothing that is not due, not served or out of attempts', async () => {
    const { database } = ctx();
    const later = isoIn(60_000);
    const [due] = await queuedJobs(database, 'c.due', 1);
    await queuedJobs(database, 'c.due', 1, { runAfter: later });
    await queuedJobs(database, 'c.due', 1, { version: 'v2' });
    const [spent] = await queuedJobs(database, 'c.due', 1, { maxAttempts: 1 });
    const t0 = Date.now();
    const got = await claim(database, 'c.due', { now: t0, leaseMs: 10_000 });
    expect(got.map((c) => c.job.id).sort()).toEqual([due, spent].sort());
    // `spent` used its only attempt: once its lease lapses it is not started again (`due` is)
    const lapsed = await claim(database, 'c.due', { now: t0 + 20_000, leaseMs: 120_000 });
    expect(lapsed.map((c) => c.job.id)).toEqual([due]);
    const atDue = await claim(database, 'c.due', { now: t0 + 61_000 });
    expect(atDue).toHaveLength(1);
    expect(atDue[0]?.job.id).not.toBe(due);
    expect((await getJobById(database.db, spent as string))?.state).toBe('running');
  });

  it('after a claim that filled up, claims the rest, then nothing, then what came later', async () => {
    // (SQLite skips its look at the queue after a full claim: the claims must not change.)
    const { database } = ctx();
    const ids = await queuedJobs(database, 'c.full', 3);
    const first = await claim(database, 'c.full', { limit: 2 });
    const rest = await claim(database, 'c.full', { limit: 2 });
    expect([...first, ...rest].map((c) => c.job.id).sort()).toEqual([...ids].sort());
    expect(await claim(database, 'c.full', { limit: 1 })).toEqual([]);
    expect(await claim(database, 'c.full', { limit: 1 })).toEqual([]);
    const [late] = await queuedJobs(database, 'c.full', 1);
    expect((await claim(database, 'c.full', { limit: 1 })).map((c) => c.job.id)).toEqual([late]);
    expect(await claim(database, 'c.full', { limit: 1 })).toEqual([]);
  });

  it('reports queued + running depth, running and the oldest due age', async () => {
    const { database } = ctx();
    const before = await queueStats(database.db);
    await queuedJobs(database, 'c.stats', 3);
    await claim(database, 'c.stats', { limit: 1, leaseMs: 60_000 });
    const stats = await queueStats(database.db, Date.now() + 1000);
    expect(stats.depth - before.depth).toBe(3);
    expect(stats.leased - before.leased).toBe(1);
    expect(stats.oldestReadyAgeMs).toBeGreaterThanOrEqual(900);
  });

  it('two handles claiming the same jobs at once never share one', async () => {
    const test = ctx();
    const second = test.open();
    const ids = await queuedJobs(test.database, 'c.handles', 40, { maxAttempts: 1 });
    const claimed: string[][] = [[], []];
    const drain = async (database: SluiceDatabase, out: string[]) => {
      for (let empty = 0; empty < 2;) {
        const got = await claim(database, 'c.handles', {
          owner: `w${out === claimed[0]}`,
          limit: 3,
        });
        if (got.length === 0) empty++;
        out.push(...got.map((c) => c.job.id));
      }
    };
    await Promise.all([
      drain(test.database, claimed[0] as string[]),
      drain(second, claimed[1] as string[]),
    ]);
    const [a, b] = claimed as [string[], string[]];
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    expect([...a, ...b].sort()).toEqual([...ids].sort());
  });
  it('renews and checks more leases than one statement binds (D1: 100 parameters)', async () => {
    const { database } = ctx();
    await queuedJobs(database, 'c.many', 150);
    const claimed = await claim(database, 'c.many', { limit: 150, leaseMs: 60_000 });
    expect(claimed).toHaveLength(150);
    const attempts = claimed.map((c) => ({ id: c.job.id, epoch: c.job.epoch }));
    const stale = attempts.map((a, i) => (i % 10 === 0 ? { ...a, epoch: a.epoch - 1 } : a));
    expect((await extendLeases(database.db, stale, 120_000)).size).toBe(135);
    expect((await stillRunning(database.db, stale)).size).toBe(135);
  });
  it('hands out higher priority first, then the oldest, across served versions too', async () => {
    const { database } = ctx();
    // One at a time, a few ms apart: jobs made in the same millisecond are equally old, and
    // either may then go first.
    const apart = async (n: number, opts: Parameters<typeof queuedJobs>[3] = {}) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        ids.push(...(await queuedJobs(database, 'c.prio', 1, opts)));
        await new Promise((r) => setTimeout(r, 3));
      }
      return ids;
    };
    const low = await apart(2, { priority: -5 });
    const mid = await apart(2);
    const high = await apart(2, { priority: 7, version: 'v2' });
    const top = await apart(1, { priority: 9 });
    const versions = [
      { kind: 'c.prio', version: 'v1' },
      { kind: 'c.prio', version: 'v2' },
    ];
    // Within one claim the rows come back in any order; which jobs each claim takes is the rule.
    const batches: string[][] = [];
    for (let i = 0; i < 4; i++) {
      const got = await claim(database, 'c.prio', { versions, limit: 2 });
      batches.push(got.map((c) => c.job.id).sort());
    }
    const expected = [...top, ...high, ...mid, ...low];
    expect(batches).toEqual([0, 2, 4, 6].map((i) => expected.slice(i, i + 2).sort()));
  });

  it('aging raises a job that waited a whole period one level, up to the top, once per period', async () => {
    const { database } = ctx();
    const [old] = await queuedJobs(database, 'c.age', 1, { priority: -10 });
    const [top] = await queuedJobs(database, 'c.age', 1, { priority: PRIORITY_MAX });
    const created = Date.parse((await getJobById(database.db, old as string))?.createdAt ?? '');
    const prio = async (id: string | undefined) =>
      (await getJobById(database.db, id as string))?.priority;
    await ageQueuedJobs(database, 60_000, created + 59_000);
    expect(await prio(old)).toBe(-10);
    // Two sweeps at the same instant (two workers' heartbeats) raise it once.
    await Promise.all([
      ageQueuedJobs(database, 60_000, created + 60_000),
      ageQueuedJobs(database, 60_000, created + 60_000),
    ]);
    expect(await prio(old)).toBe(-9);
    await ageQueuedJobs(database, 60_000, created + 90_000);
    expect(await prio(old)).toBe(-9);
    let t = created + 60_000;
    for (let i = 0; i < 25; i++) await ageQueuedJobs(database, 60_000, (t += 60_000));
    expect([await prio(old), await prio(top)]).toEqual([PRIORITY_MAX, PRIORITY_MAX]);
    // At the top, age decides: the old job goes first.
    const first = await claim(database, 'c.age', { limit: 1 });
    expect(first.map((c) => c.job.id)).toEqual([old]);
  });
  done();
}
