// Catches a job run by a version it was not accepted for (a version nobody serves is dead-lettered,
// never passed silently to another): v2 jobs while only v1 workers live must end dead-lettered
// with VERSION_NOT_ROUTABLE — the ones queued on v2 after the grace sweep, and (where the
// transport can carry them) the ones a dispatcher wrongly put on the v1 queue, at delivery: the
// job id's prefix routes, not the queue — and the v1 handler must never see any of them. Written
// once; each runtime's test file passes its rig.
import { defineJob, formatJobId, isTerminalState, type MessagePointer } from '@sluice/contracts';
import {
  getJobsByIds,
  insertJob,
  listEvents,
  transitionJob,
  type DialectName,
} from '@sluice/storage';
import { TEST_DIALECTS } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { createWorker } from '../create-worker.js';
import { defineHandler } from '../attempt/define-handler.js';
import { recordFigures } from './figures.js';
import { describeOnRig, type InvariantRig } from './invariant-rig.js';
import { hooksFromEnv } from './seeded-bugs.js';

const xpVer = defineJob({
  kind: 'xp.ver',
  versions: { current: 'v1', next: 'v2' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ ranAs: z.string() }),
});

export function describeNoSilentVersionFallback(
  runtime: string,
  makeRig: () => Promise<InvariantRig>,
  dialects: readonly DialectName[] = TEST_DIALECTS,
): void {
  describeOnRig('no silent version fallback', makeRig, dialects, (ctx) => {
    it(
      `v2 jobs with only v1 workers are dead-lettered VERSION_NOT_ROUTABLE, never run by v1 [${runtime}]`,
      { timeout: 60_000 },
      async () => {
        const { database, rig } = ctx();
        const ran: string[] = [];
        const logs: unknown[] = [];
        const logger = {
          info: () => {},
          warn: (m: string, f?: unknown) => void logs.push([m, f]),
          error: (m: string, f?: unknown) => void logs.push([m, f]),
        };
        const v1 = defineHandler(xpVer, {
          prepare: (c) => {
            ran.push(c.jobId);
            return [];
          },
          execute: () => null,
          finalize: (_r, c) => ({ ranAs: c.version }),
        });
        const pointer = (version: 'v1' | 'v2', queue: 'v1' | 'v2'): MessagePointer => ({
          jobId: formatJobId(version),
          kind: xpVer.kind,
          version: queue,
          tenantId: 'acme',
        });
        const ok = [pointer('v1', 'v1'), pointer('v1', 'v1')];
        const onV2 = [pointer('v2', 'v2'), pointer('v2', 'v2'), pointer('v2', 'v2')];
        // What a dispatcher that "fell back" would send: a v2 job on the v1 queue (where the
        // transport can carry one: a pointer codec that refuses a version other than the id's
        // prefix cannot be sent it).
        const misrouted = rig.carriesMisroutedPointers
          ? [pointer('v2', 'v1'), pointer('v2', 'v1')]
          : [];
        const all = [...ok, ...onV2, ...misrouted];
        await database.transaction(async (tx) => {
          for (const p of all) {
            await insertJob(tx, {
              id: p.jobId,
              tenantId: 'acme',
              kind: p.kind,
              version: p.jobId.slice(0, 2),
              input: { n: 1 },
              inputHash: p.jobId,
              maxAttempts: 3,
            });
            await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
          }
          if (rig.dispatchesInTransaction) await rig.dispatch(database, all, tx);
        });
        if (!rig.dispatchesInTransaction) await rig.dispatch(database, all);

        const started = Date.now();
        const worker = createWorker({
          hooks: hooksFromEnv(database),
          jobs: { [xpVer.kind]: xpVer },
          handlers: { [xpVer.kind]: { v1 } },
          database,
          concurrency: 4,
          leaseMs: 1500,
          unroutableGraceMs: 500,
          sweepEveryMs: 100,
          logger,
          runtime: rig.consumer(database),
        });
        onTestFinished(() => worker.stop({ deadlineMs: 2000 }));
        await worker.start();
        const ids = all.map((p) => p.jobId);
        await waitFor(
          async () =>
            [...(await getJobsByIds(database.db, ids)).values()].every((r) =>
              isTerminalState(r.state),
            ),
          { timeoutMs: 30_000, message: 'every job terminal' },
        ).catch(async (error: unknown) => {
          const states = [...(await getJobsByIds(database.db, ids)).values()].map(
            (r) => `${r.id} ${r.state} ${r.reason ?? ''}`,
          );
          throw new Error(`${String(error)}\n${states.join('\n')}\n${JSON.stringify(logs)}`);
        });
        const rows = await getJobsByIds(database.db, ids);
        for (const p of ok)
          expect(rows.get(p.jobId)).toMatchObject({ state: 'succeeded', output: { ranAs: 'v1' } });
        for (const p of [...onV2, ...misrouted]) {
          expect(rows.get(p.jobId), p.jobId).toMatchObject({
            state: 'dead_lettered',
            reason: 'VERSION_NOT_ROUTABLE',
            attempts: 0,
          });
          const events = await listEvents(database.db, p.jobId);
          expect(events.some((e) => e.type === 'state' && e.to === 'running')).toBe(false);
        }
        expect(ran.sort()).toEqual(ok.map((p) => p.jobId).sort());
        recordFigures('no-silent-version-fallback', {
          runtime,
          dialect: ctx().dialect,
          v2_jobs: onV2.length + misrouted.length,
          run_by_v1: ran.filter((id) => id.startsWith('v2-')).length,
          dead_lettered_not_routable: [...onV2, ...misrouted].filter(
            (p) => rows.get(p.jobId)?.reason === 'VERSION_NOT_ROUTABLE',
          ).length,
          ms: Date.now() - started,
        });
      },
    );
  });
}
