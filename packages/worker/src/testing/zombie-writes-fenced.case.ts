// Catches a zombie worker's late writes landing after its job was taken over: a duplicate
// terminal event, a second output, progress from the old attempt after the reclaim, or (where
// the transport tracks its own claims) an unconditional renewal taking the delivery back. A real
// worker process is SIGSTOPped past its lease, another process reclaims and runs the job, then the
// first one is SIGCONTed mid-run: every write it then tries is fenced by the epoch. Written once;
// each runtime's test file passes its rig.
import { getJobsByIds, listEvents, type DialectName } from '@sluice/storage';
import { TEST_DIALECTS } from '@sluice/storage/testing';
import { sleep, spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { recordFigures } from './figures.js';
import {
  describeOnRig,
  submitXpJobsVia,
  type InvariantRig,
  XP_WORKER_CHILD,
} from './invariant-rig.js';

const UNITS = 6;
const LEASE_MS = 1000;

export function describeZombieWritesFenced(
  runtime: string,
  makeRig: () => Promise<InvariantRig>,
  dialects: readonly DialectName[] = TEST_DIALECTS,
): void {
  describeOnRig('a paused worker resumed after its lease was taken', makeRig, dialects, (ctx) => {
    it(
      `has its late writes rejected by the epoch fence, and takes nothing back [${runtime}]`,
      { timeout: 120_000 },
      async () => {
        const { database, url, rig, dialect } = ctx();
        const env = {
          DB_URL: url,
          ...rig.childEnv(),
          LEASE_MS: String(LEASE_MS),
          RENEW_MS: '200',
          // Long units: the zombie is paused between its first unit's stored progress and its
          // second unit, a window the test must hit on a loaded machine too.
          UNIT_MS: '1000',
          UNITS: String(UNITS),
        };
        await using a = await spawnNode(XP_WORKER_CHILD, {
          env: { ...env, WORKER_ID: 'zombie-a' },
          readyLine: /READY (\S+)/,
        });
        const aProbes = (await a.waitForLine(/READY (\S+)/))[1] as string;
        const [jobId] = (await submitXpJobsVia(rig, database, 1)) as [string];
        await a.waitForLine(/UNIT \S+ u0/, 20_000);
        // Pause between writes: once u0's progress is stored (its flush follows the unit; a
        // fixed delay missed it at load 13), well before u1 ends.
        await waitFor(
          async () =>
            (await listEvents(database.db, jobId)).some(
              (e) => e.type === 'progress' && (e.data as { by: string }).by === 'zombie-a',
            ),
          { timeoutMs: 10_000, intervalMs: 10, message: "a's u0 progress stored" },
        );
        a.signal('SIGSTOP');
        const stoppedAt = Date.now();

        await using b = await spawnNode(XP_WORKER_CHILD, {
          env: { ...env, WORKER_ID: 'zombie-b' },
          readyLine: /READY/,
        });
        const claims = rig.claims?.bind(rig);
        const owners = async () => (claims ? (await claims('xp.work')).map((c) => c.consumer) : []);
        await waitFor(
          async () => (await getJobsByIds(database.db, [jobId])).get(jobId)?.attempts === 2,
          { timeoutMs: 20_000, intervalMs: 20, message: 'reclaimed by b' },
        );
        const reclaimedAfter = Date.now() - stoppedAt;
        // b's (or already acked by b: on a loaded machine the poll above can come late): one
        // claim at most, never the zombie's.
        if (claims) expect(['zombie-b', '']).toContain((await owners()).join(','));
        await b.waitForLine(/UNIT \S+ u1/, 10_000);
        // Wake the zombie while b is mid-run: its overdue unit and renewal fire at once. From
        // now on the delivery must never be the zombie's again.
        a.signal('SIGCONT');
        const seen = new Set<string>();
        await waitFor(
          async () => {
            for (const o of await owners()) seen.add(o);
            return (await getJobsByIds(database.db, [jobId])).get(jobId)?.state === 'succeeded';
          },
          { timeoutMs: 20_000, intervalMs: 10, message: 'b finished' },
        );
        await sleep(800); // time for any late write or ack from a to land (none may)
        expect(seen.has('zombie-a')).toBe(false);

        const row = (await getJobsByIds(database.db, [jobId])).get(jobId);
        expect(row?.output).toEqual({ n: 0, by: 'zombie-b' });
        const events = await listEvents(database.db, jobId);
        expect(events.filter((e) => 'to' in e && e.to === 'succeeded')).toHaveLength(1);
        const reclaim = events.find(
          (e) => e.type === 'state' && e.from === 'running' && e.to === 'running',
        );
        expect(reclaim).toMatchObject({ attempt: 2 });
        const after = events.filter((e) => e.seq > (reclaim?.seq ?? Infinity));
        const progressBy = after.flatMap((e) =>
          e.type === 'progress' ? [(e.data as { by: string }).by] : [],
        );
        // u0 finished under a before the pause: when its checkpoint was stored by then, b reuses
        // it instead of running it again (no progress from b for it), else b runs it.
        const reusedAfter = after.flatMap((e) =>
          e.type === 'unit_done' && e.reused ? [e.unitKey] : [],
        );
        expect(reusedAfter.filter((k) => k !== 'u0')).toEqual([]);
        expect(progressBy).toEqual(
          Array.from({ length: UNITS - reusedAfter.length }, () => 'zombie-b'),
        );
        expect(new Set(progressBy)).toEqual(new Set(['zombie-b']));
        expect(progressBy.length).toBeGreaterThanOrEqual(UNITS - 1);
        const unitsAfter = after.flatMap((e) => (e.type === 'unit_done' ? [e.unitKey] : []));
        expect(unitsAfter.sort()).toEqual(Array.from({ length: UNITS }, (_, i) => `u${i}`));
        // Before the reclaim only a's first unit landed.
        const before = events.filter((e) => e.seq < (reclaim?.seq ?? 0) && e.type === 'progress');
        expect(
          before.map((e) => (e.type === 'progress' ? (e.data as { by: string }).by : '')),
        ).toEqual(['zombie-a']);
        const zombieWrites = after.filter(
          (e) => e.type === 'progress' && (e.data as { by: string }).by === 'zombie-a',
        ).length;
        // The zombie knows it lost: it aborted the attempt instead of finishing it.
        const metrics = await (await fetch(`${aProbes}/metrics`)).text();
        expect(metrics).toMatch(/^sluice_worker_lost_leases_total [1-9]/m);
        expect(metrics).toMatch(/^sluice_worker_succeeded_total 0$/m);
        // Where the transport tracks its claims, the zombie lost through its owner-checked
        // renewal of them (or, if b had already finished, the database check).
        const renewalsLost = claims
          ? await waitFor(async () => {
              const text = await (await fetch(`${aProbes}/metrics`)).text();
              return /^sluice_worker_runtime_renewals_lost_total (\d+)/m.exec(text)?.[1];
            })
          : undefined;
        expect(
          await database.db
            .selectFrom('jobs')
            .select('id')
            .where('state', 'in', ['queued', 'running'])
            .execute(),
        ).toEqual([]);
        await waitFor(async () => (await rig.outstanding(database, 'xp.work')) === 0, {
          message: 'nothing outstanding',
        });
        recordFigures('sigstop-zombie', {
          runtime,
          dialect,
          t_reclaim_after_pause_ms: reclaimedAfter,
          zombie_writes_landed: zombieWrites,
          zombie_took_claim_back: seen.has('zombie-a'),
          zombie_renewals_lost: renewalsLost === undefined ? null : Number(renewalsLost),
          duplicates: events.filter((e) => 'to' in e && e.to === 'succeeded').length - 1,
          lease_ms: LEASE_MS,
        });
        await b.stop();
        await a.stop();
      },
    );
  });
}
