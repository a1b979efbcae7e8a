// Catches lost or doubled work when a worker process dies mid-job: a claim that never expires, a
// reclaim that does not happen (entries stranded with a dead consumer), a claim before the lease
// or idle time, or a job finished twice. A real OS process is SIGKILLed while it runs jobs;
// another worker process must take them over after the lease and finish each exactly once,
// leaving nothing outstanding on the transport. Written once; each runtime's test file passes its
// rig. Where the transport tracks its own claims (`rig.claims`), the dead consumer's must go, and
// not before their idle time.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJobsByIds, listEvents, type DialectName } from '@sluice/storage';
import { TEST_DIALECTS } from '@sluice/storage/testing';
import { spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { recordFigures } from './figures.js';
import {
  describeOnRig,
  submitXpJobsVia,
  type InvariantRig,
  XP_WORKER_CHILD,
} from './invariant-rig.js';
import { terminalEventCounts } from './submit-xp-jobs.js';

const LEASE_MS = 1000;
const JOBS = 8;

export function describeNoJobLostOnCrash(
  runtime: string,
  makeRig: () => Promise<InvariantRig>,
  dialects: readonly DialectName[] = TEST_DIALECTS,
): void {
  describeOnRig('a worker process killed mid-job loses no job', makeRig, dialects, (ctx) => {
    it(
      `the lease expires, another process finishes every job exactly once [${runtime}]`,
      { timeout: 120_000 },
      async () => {
        const { database, url, rig, dialect } = ctx();
        const env = {
          DB_URL: url,
          ...rig.childEnv(),
          LEASE_MS: String(LEASE_MS),
          RENEW_MS: '250',
          UNIT_MS: '250',
          UNITS: '6',
          CONCURRENCY: String(JOBS),
        };
        const go = join(mkdtempSync(join(tmpdir(), 'sluice-go-')), 'go');
        // B is loaded and waiting before A dies, so the figure below is the takeover alone.
        await using b = await spawnNode(XP_WORKER_CHILD, {
          env: { ...env, WORKER_ID: 'xp-b', GO_FILE: go },
          readyLine: /LOADED/,
        });
        await using a = await spawnNode(XP_WORKER_CHILD, {
          env: { ...env, WORKER_ID: 'xp-a' },
          readyLine: /READY/,
        });
        const ids = await submitXpJobsVia(rig, database, JOBS);
        await a.waitForLine(/UNIT \S+ u1/, 20_000);
        const startedByA = [...a.output().matchAll(/STARTED (\S+) 1/g)].map((m) => m[1] as string);
        expect(startedByA.length).toBeGreaterThan(0);
        const claims = rig.claims?.bind(rig);
        const owned = async (consumer: string) =>
          claims ? (await claims('xp.work')).filter((c) => c.consumer === consumer) : [];
        if (claims) expect((await owned('xp-a')).length).toBeGreaterThan(0);
        // How long ago A last renewed its freshest claim: that claim's idle clock started then,
        // not at the kill (renewals run every 250 ms, later on a loaded machine).
        const idleAtKill = Math.min(...(await owned('xp-a')).map((c) => c.idleMs));
        const killStartedAt = Date.now();
        await a.kill();
        const killedAt = Date.now();
        writeFileSync(go, '');
        await b.waitForLine(/READY/);
        const detectedAt = claims
          ? await waitFor(async () => ((await owned('xp-a')).length === 0 ? Date.now() : 0), {
              timeoutMs: 20_000,
              intervalMs: 10,
              message: "the dead consumer's claims taken over",
            })
          : undefined;
        const taken = await waitFor(
          async () => {
            const rows = await getJobsByIds(database.db, startedByA);
            return [...rows.values()].some((r) => r.attempts >= 2) ? Date.now() : 0;
          },
          { timeoutMs: 20_000, intervalMs: 10, message: 'a killed job reclaimed' },
        );
        await waitFor(
          async () =>
            [...(await getJobsByIds(database.db, ids)).values()].every(
              (r) => r.state === 'succeeded',
            ),
          { timeoutMs: 40_000, message: 'every job succeeded' },
        );
        const rows = await getJobsByIds(database.db, ids);
        for (const id of ids) {
          const terminal = (await listEvents(database.db, id)).filter(
            (e) => e.type === 'state' && e.to === 'succeeded',
          );
          expect(terminal, id).toHaveLength(1);
        }
        const terminal = await terminalEventCounts(database, ids);
        expect(terminal).toEqual(ids.map(() => 1));
        for (const id of startedByA) {
          const row = rows.get(id);
          // Unless A finished it before the kill, A's attempt was taken over (attempt 2 by b).
          if ((row?.output as { by?: string }).by === 'xp-b') expect(row?.attempts).toBe(2);
        }
        const left = await database.db
          .selectFrom('jobs')
          .select('id')
          .where('state', 'in', ['queued', 'running'])
          .execute();
        expect(left).toEqual([]);
        await waitFor(async () => (await rig.outstanding(database, 'xp.work')) === 0, {
          message: 'nothing outstanding on the transport',
        });
        expect(await rig.outstanding(database, 'xp.work')).toBe(0);
        if (detectedAt !== undefined)
          // The claim waits for the idle time; it must not come before it either (50 ms of
          // clock slack).
          expect(detectedAt - killStartedAt).toBeGreaterThanOrEqual(LEASE_MS - idleAtKill - 50);
        recordFigures('sigkill-worker', {
          runtime,
          dialect,
          jobs: ids.length,
          mid_run_on_victim: startedByA.length,
          t_detect_ms: detectedAt === undefined ? null : detectedAt - killedAt,
          t_recover_ms: taken - killedAt,
          jobs_lost: ids.length - [...rows.values()].filter((r) => r.state === 'succeeded').length,
          duplicates: terminal.reduce((n, c) => n + Math.max(0, c - 1), 0),
          lease_ms: LEASE_MS,
          renew_ms: 250,
        });
        await b.stop();
      },
    );
  });
}
