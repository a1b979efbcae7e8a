// Catches an activity read that miscounts or leaks: jobs finished per state land in the right
// window (15 min, 1 h; older ones not at all), a tenant sees only the workers running its own
// jobs with the count each holds while an admin's `*` lists every live worker, a non-admin naming
// a tenant is refused, and the latency histogram is the gateway's own, counting the submits.
import { beatLiveness, claimJobs } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { succeedJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('jobs.activity', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
    const { database } = ctx();
    const claim = async (owner: string, limit: number) =>
      claimJobs(database, {
        versions: [{ kind: 'demo.echo', version: 'v1' }],
        owner,
        leaseMs: 60_000,
        limit,
      });
    for (const text of ['a1', 'a2', 'a3'])
      await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text } });
    const mine = await claim('w-acme', 3);
    expect(mine).toHaveLength(3);
    for (const c of mine.slice(0, 2))
      await succeedJob(database, c.job.id, c.job.epoch, { text: 'ok' });
    // One finished half an hour ago: in the hour, not in the last 15 minutes.
    await database.db
      .updateTable('jobs')
      .set({ finished_at: new Date(Date.now() - 30 * 60_000).toISOString() })
      .where('id', '=', mine[0]?.job.id ?? '')
      .execute();
    await f.http(f.keyB).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'b1' } });
    expect(await claim('w-globex', 1)).toHaveLength(1);
    for (const w of ['w-acme', 'w-globex', 'w-idle']) await beatLiveness(database.db, w, 30_000);
  });
  afterAll(async () => {
    await f.close();
  });

  it('counts finished jobs per window and lists the workers running the tenant’s jobs', async () => {
    const a = await f.http(f.keyA).jobs.activity.query();
    expect(a.finished).toEqual([
      { window: '15m', state: 'succeeded', count: 1 },
      { window: '1h', state: 'succeeded', count: 2 },
    ]);
    expect(a.workers).toEqual([
      {
        workerId: 'w-acme',
        running: 1,
        startedAt: expect.any(String),
        aliveUntil: expect.any(String),
      },
    ]);
    const b = await f.http(f.keyB).jobs.activity.query();
    expect(b.finished).toEqual([]);
    expect(b.workers.map((w) => [w.workerId, w.running])).toEqual([['w-globex', 1]]);
  });

  it('an admin’s * lists every live worker; a non-admin may not name a tenant', async () => {
    const all = await f.http(f.adminKey).jobs.activity.query({ tenant: '*' });
    expect(all.workers.map((w) => [w.workerId, w.running])).toEqual([
      ['w-acme', 1],
      ['w-globex', 1],
      ['w-idle', 0],
    ]);
    const globex = await f.http(f.adminKey).jobs.activity.query({ tenant: 'globex' });
    expect(globex.workers.map((w) => w.workerId)).toEqual(['w-globex']);
    const refused = await errorOf(f.http(f.keyA).jobs.activity.query({ tenant: '*' }));
    expect(refused.data).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('reads the submit-latency histogram from the gateway’s own registry', async () => {
    const { latency } = await f.http(f.keyA).jobs.activity.query();
    const accept = latency.find((h) => h.name === 'sluice_gateway_accept_seconds');
    expect(accept?.count).toBeGreaterThanOrEqual(4);
    // Cumulative buckets: the +Inf bucket holds every observation.
    expect(accept?.buckets.at(-1)).toEqual({ le: null, count: accept?.count });
    // No worker shares this gateway's registry, so it has no run histograms.
    expect(latency.map((h) => h.name)).toEqual(['sluice_gateway_accept_seconds']);
  });
});
