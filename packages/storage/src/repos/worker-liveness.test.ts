// Catches a dead worker's running jobs waiting for their whole lease (30 s by default) before
// another worker may take them, and a reap that takes the jobs of a worker that is still alive or
// of one that never beat (bound by its lease alone).
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { queuedJobs } from '../write-model/claim-jobs.case.js';
import { claimJobs } from '../write-model/claim-jobs.js';
import { extendLeases } from './job-leases.js';
import {
  beatLiveness,
  dropLiveness,
  forgetDeadWorkers,
  lapsedWorkers,
  LIVENESS_FORGET_MS,
  reapLapsedWorkers,
} from './worker-liveness.js';

const LEASE_MS = 30_000;

describeEachDialect('worker liveness (a dead holder is known in seconds)', (ctx) => {
  const claim = (kind: string, owner: string, now: number) =>
    claimJobs(ctx().database, {
      versions: [{ kind, version: 'v1' }],
      owner,
      leaseMs: LEASE_MS,
      limit: 10,
      includeOwn: false,
      now,
    });

  it("a lapsed worker's running jobs are claimed at a new epoch long before their lease", async () => {
    const { database } = ctx();
    const t0 = Date.now();
    const ids = await queuedJobs(database, 'live.dead', 2);
    await beatLiveness(database.db, 'dead-1', 3000, t0);
    const held = await claim('live.dead', 'dead-1', t0);
    expect(held.map((j) => j.job.id).sort()).toEqual([...ids].sort());
    // Nothing to take while its beat still counts.
    expect(await reapLapsedWorkers(database.db, t0 + 2000)).toEqual([]);
    expect(await claim('live.dead', 'w-2', t0 + 2000)).toEqual([]);
    // 4 s after its last beat, a tenth of the lease: reaped, then claimed by another process.
    expect((await reapLapsedWorkers(database.db, t0 + 4000)).sort()).toEqual([...ids].sort());
    const taken = await claim('live.dead', 'w-2', t0 + 4000);
    expect(taken.map((j) => j.job.id).sort()).toEqual([...ids].sort());
    for (const j of taken) {
      const before = held.find((h) => h.job.id === j.job.id);
      expect(j.job.epoch).toBe((before?.job.epoch ?? 0) + 1);
    }
    // The old holder, if it was only slow, renews nothing: the epoch fence stands.
    const renewed = await extendLeases(
      database.db,
      held.map((j) => ({ id: j.job.id, epoch: j.job.epoch })),
      LEASE_MS,
      t0 + 4100,
    );
    expect(renewed.size).toBe(0);
    // A second reap finds nothing more (the new holder's jobs are not the dead one's).
    expect(await reapLapsedWorkers(database.db, t0 + 4200)).toEqual([]);
  });

  it('a worker that keeps beating keeps its jobs; one without a row is bound by its lease', async () => {
    const { database } = ctx();
    const t0 = Date.now();
    const mine = [
      ...(await queuedJobs(database, 'live.alive', 1)),
      ...(await queuedJobs(database, 'live.norow', 1)),
    ];
    const reaped = async (now: number) =>
      (await reapLapsedWorkers(database.db, now)).filter((id) => mine.includes(id));
    await beatLiveness(database.db, 'alive-1', 3000, t0);
    await claim('live.alive', 'alive-1', t0);
    await claim('live.norow', 'norow-1', t0);
    await beatLiveness(database.db, 'alive-1', 3000, t0 + 2500);
    expect(await reaped(t0 + 4000)).toEqual([]);
    expect(await lapsedWorkers(database.db, ['alive-1', 'norow-1'], t0 + 4000)).toEqual([]);
    expect(await claim('live.alive', 'w-2', t0 + 4000)).toEqual([]);
    expect(await claim('live.norow', 'w-2', t0 + 4000)).toEqual([]);
    expect(await lapsedWorkers(database.db, ['alive-1'], t0 + 6000)).toEqual(['alive-1']);
    // A clean stop withdraws the row: what is left is the lease's to bound.
    await dropLiveness(database.db, 'alive-1');
    expect(await reaped(t0 + 6000)).toEqual([]);
    expect(await claim('live.norow', 'w-2', t0 + LEASE_MS + 1)).toHaveLength(1);
  });

  it('rows of dead workers are forgotten after ten minutes, not before', async () => {
    const { database } = ctx();
    const t0 = Date.now();
    await beatLiveness(database.db, 'gone-1', 1000, t0);
    await beatLiveness(database.db, 'gone-2', 1000, t0 + 60_000);
    const rows = async () =>
      (
        await database.db
          .selectFrom('worker_liveness')
          .select('worker_id')
          .where('worker_id', 'in', ['gone-1', 'gone-2'])
          .orderBy('worker_id')
          .execute()
      ).map((r) => r.worker_id);
    await forgetDeadWorkers(database.db, t0 + 1000 + LIVENESS_FORGET_MS - 1);
    expect(await rows()).toEqual(['gone-1', 'gone-2']);
    await forgetDeadWorkers(database.db, t0 + 1000 + LIVENESS_FORGET_MS + 1);
    expect(await rows()).toEqual(['gone-2']);
  });
});
