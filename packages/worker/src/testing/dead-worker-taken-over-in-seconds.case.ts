// Catches a dead worker's running jobs waiting out their whole lease (30 s here, the default)
// before anyone resumes them (on a transport with its own claims: entries left in the dead
// consumer's pending list until they idle out): worker A (its own process) SIGKILLs itself
// mid-job, after a unit's paid call is checkpointed; worker B, a process with another id started
// after the kill, must take A's running jobs over at a new epoch within seconds (A's liveness beat
// lapsed; its leases have not) and finish them with every unit billed exactly once (the fake
// provider's own ledger). Written once; each runtime's test file passes its rig.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJobsByIds, type DialectName } from '@sluice/storage';
import { TEST_DIALECTS } from '@sluice/storage/testing';
import { spawnNode, startFakeProvider, waitFor, type FakeProvider } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnRig, submitPaidJobsVia, type InvariantRig } from './invariant-rig.js';
import { billsByUnit } from './paid-harness.js';
import { paidJob } from './paid-job.js';

const entry = new URL('./paid-worker-child.ts', import.meta.url);
const LEASE_MS = 30_000;
const DEAD_AFTER_MS = 2000;
/** Well under the lease: only liveness can make it. */
const TAKEOVER_BOUND_MS = 12_000;

export function describeDeadWorkerTakenOverInSeconds(
  runtime: string,
  makeRig: () => Promise<InvariantRig>,
  dialects: readonly DialectName[] = TEST_DIALECTS,
): void {
  describeOnRig('a dead worker is taken over in seconds, not a lease', makeRig, dialects, (ctx) => {
    let provider: FakeProvider;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sluice-liveness-'));
      provider = await startFakeProvider({ asyncDelayMs: 60 });
    });
    afterAll(async () => {
      await provider?.[Symbol.asyncDispose]();
      rmSync(dir, { recursive: true, force: true });
    });

    it(
      `SIGKILL mid-job: another process resumes it within seconds, each unit billed once [${runtime}]`,
      { timeout: 90_000 },
      async () => {
        const { database, url, dialect, rig } = ctx();
        const env = {
          DB_URL: url,
          PROVIDER_URL: provider.url,
          ...rig.childEnv(),
          LEASE_MS: String(LEASE_MS),
          LIVENESS_MS: '250',
          DEAD_AFTER_MS: String(DEAD_AFTER_MS),
          // One job at a time: A dies holding one, after its first unit's call was checkpointed,
          // so no call of it is in flight (an in-flight sync call would rightly go to review).
          CONCURRENCY: '1',
        };
        const ids = await submitPaidJobsVia(
          rig,
          database,
          [1, 2].map(() => ({ call: 'sync' as const, units: 3 })),
        );
        const goB = join(dir, `go-b-${dialect}`);
        // B loads first (start-up is most of its cost) and starts only after A is dead.
        await using b = await spawnNode(entry, {
          env: { ...env, WORKER_ID: `${runtime}-b-${dialect}`, GO_FILE: goB },
          readyLine: /^LOADED$/m,
        });
        const a = await spawnNode(entry, {
          env: {
            ...env,
            WORKER_ID: `${runtime}-a-${dialect}`,
            CRASHPOINTS: 'after-unit-checkpoint@1',
          },
          readyLine: /READY/,
        });
        const exit = await Promise.race([
          a.exited,
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error(`A did not crash:\n${a.output()}`)), 30_000),
          ),
        ]);
        const killedAt = Date.now();
        expect(exit.signal, a.output()).toBe('SIGKILL');
        const held = [...(await getJobsByIds(database.db, ids)).values()].filter(
          (r) => r.state === 'running',
        );
        expect(held.length, 'A died holding running jobs').toBeGreaterThan(0);
        writeFileSync(goB, '');
        const allDone = async () =>
          [...(await getJobsByIds(database.db, ids)).values()].every(
            (r) => r.state === 'succeeded',
          );
        await waitFor(allDone, { timeoutMs: TAKEOVER_BOUND_MS }).catch((error: unknown) => {
          throw new Error(
            `B did not finish A's jobs within ${TAKEOVER_BOUND_MS} ms of the kill (lease ${LEASE_MS} ms): ${String(error)}\n--- A ---\n${a.output()}\n--- B ---\n${b.output()}`,
          );
        });
        const resumedIn = Date.now() - killedAt;
        const rows = await getJobsByIds(database.db, ids);
        for (const h of held) {
          const row = rows.get(h.id);
          // Taken at a new epoch, long before A's lease would have let anyone in.
          expect(row?.epoch).toBeGreaterThan(h.epoch);
          expect(Date.parse(row?.finishedAt ?? '')).toBeLessThan(Date.parse(h.leaseUntil ?? ''));
        }
        for (const id of ids) {
          const bills = billsByUnit(await provider.ledger({ jobId: id }));
          expect(
            [0, 1, 2].map((i) => bills.get(`u${i}`) ?? 0),
            `ledger of ${id}`,
          ).toEqual([1, 1, 1]);
        }
        await waitFor(async () => (await rig.outstanding(database, paidJob.kind)) === 0, {
          message: 'nothing outstanding (PEL drained)',
        });
        console.log(
          `[${runtime}/${dialect}] SIGKILL -> all jobs done in ${resumedIn} ms (lease ${LEASE_MS} ms)`,
        );
        await b.stop();
      },
    );
  });
}
