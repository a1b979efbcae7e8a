// Catches a restarted worker that waits out its own previous incarnation's lease before running
// the work it had (30 s by default): a worker process SIGKILLed mid-job and started again under
// the same worker id must take its running jobs back at once — a new epoch fences the dead
// incarnation — and finish every job exactly once, each before the lease the dead one held
// would have lapsed. Written once; each runtime's test file passes its rig (the embedded claims,
// a transport's own pending deliveries).

import { getJobsByIds, type DialectName, type SluiceDatabase } from '@sluice/storage';
import { spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import {
  describeOnRig,
  ONE_DIALECT,
  submitXpJobsVia,
  type InvariantRig,
  XP_WORKER_CHILD,
} from './invariant-rig.js';
import { terminalEventCounts } from './submit-xp-jobs.js';

const LEASE_MS = 30_000;

export function describeRestartedWorkerTakesItsJobsBack(
  runtime: string,
  makeRig: () => Promise<InvariantRig>,
  dialects: readonly DialectName[] = ONE_DIALECT,
): void {
  describeOnRig('a restarted worker takes its jobs back', makeRig, dialects, (ctx) => {
    it(
      `a worker restarted under the same id resumes its jobs before its old lease lapses [${runtime}]`,
      { timeout: 90_000 },
      async () => {
        const { rig, url } = ctx();
        const database: SluiceDatabase = ctx().database;
        const env = {
          DB_URL: url,
          ...rig.childEnv(),
          LEASE_MS: String(LEASE_MS),
          RENEW_MS: '5000',
          UNIT_MS: '300',
          UNITS: '4',
          CONCURRENCY: '4',
          WORKER_ID: `same-${runtime}`,
        };
        const ids = await submitXpJobsVia(rig, database, 4);
        const first = await spawnNode(XP_WORKER_CHILD, { env, readyLine: /READY/ });
        // Past the start delay: the jobs are `running` in the database under this worker's lease.
        await first.waitForLine(/UNIT \S+ u1/, 30_000);
        await first.kill();
        const held = [...(await getJobsByIds(database.db, ids)).values()].filter(
          (r) => r.state === 'running',
        );
        expect(held.length).toBeGreaterThan(0);
        const lapses = new Map(held.map((r) => [r.id, Date.parse(r.leaseUntil ?? '')]));
        await using second = await spawnNode(XP_WORKER_CHILD, { env, readyLine: /READY/ });
        await waitFor(
          async () =>
            [...(await getJobsByIds(database.db, ids)).values()].every(
              (r) => r.state === 'succeeded',
            ),
          { timeoutMs: 25_000, message: 'every job succeeded' },
        );
        const rows = await getJobsByIds(database.db, ids);
        for (const [id, lapse] of lapses) {
          const row = rows.get(id);
          expect(row?.state).toBe('succeeded');
          // Taken back under a new epoch, and done before the dead incarnation's lease lapsed.
          expect(Date.parse(row?.finishedAt ?? '')).toBeLessThan(lapse);
          expect((row?.output as { by?: string }).by).toBe(env.WORKER_ID);
        }
        expect(await terminalEventCounts(database, ids)).toEqual(ids.map(() => 1));
        await second.stop();
      },
    );
  });
}
