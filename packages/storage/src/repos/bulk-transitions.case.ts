import fc from 'fast-check';
import { formatJobId, JOB_TRANSITIONS, type JobTransition } from '@sluice/contracts';
import { expect } from 'vitest';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { transitionJobs } from './bulk-transitions.js';
import { listEvents } from './events.js';
import {
  extendLeases,
  getJobById,
  insertJob,
  transitionJob,
  type TransitionRequest,
} from './jobs.js';
import type { JobRow } from './job-row.js';

const SETUPS: JobTransition[][] = [
  [],
  ['dispatch'],
  ['schedule'],
  ['dispatch', 'start'],
  ['dispatch', 'start', 'review'],
  ['dispatch', 'start', 'succeed'],
];

/** The suite, for every database (bulk-transitions.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function bulkTransitionsCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
  it('reclaim waits for the holder’s lease; extendLeases renews only live attempts', async () => {
    const { database } = ctx();
    const id = formatJobId('v1');
    const t0 = Date.now();
    await repoWrite(database, (tx) =>
      insertJob(tx, {
        id,
        tenantId: 'acme',
        kind: 'a.b',
        version: 'v1',
        input: {},
        inputHash: 'h',
        maxAttempts: 5,
      }),
    );
    await repoWrite(database, (tx) => transitionJob(tx, { id, event: 'dispatch' }));
    const started = await repoWrite(database, (tx) =>
      transitionJob(tx, { id, event: 'start', leaseMs: 1000 }, t0),
    );
    expect(started.ok && started.job.leaseUntil).toBe(new Date(t0 + 1000).toISOString());
    expect(
      (
        await repoWrite(database, (tx) =>
          transitionJob(tx, { id, event: 'reclaim', leaseMs: 1000 }, t0 + 500),
        )
      ).ok,
    ).toBe(false);
    expect([
      ...(await extendLeases(
        database.db,
        [
          { id, epoch: 1 },
          { id, epoch: 7 },
        ],
        1000,
        t0 + 900,
      )),
    ]).toEqual([id]);
    expect(
      (
        await repoWrite(database, (tx) =>
          transitionJob(tx, { id, event: 'reclaim', leaseMs: 1000 }, t0 + 1500),
        )
      ).ok,
    ).toBe(false);
    const reclaimed = await repoWrite(database, (tx) =>
      transitionJob(tx, { id, event: 'reclaim', leaseMs: 1000 }, t0 + 1901),
    );
    expect(reclaimed.ok && reclaimed.job).toMatchObject({
      epoch: 2,
      attempts: 2,
      leaseUntil: new Date(t0 + 2901).toISOString(),
    });
    expect((await extendLeases(database.db, [{ id, epoch: 1 }], 1000)).size).toBe(0);
    const done = await repoWrite(database, (tx) =>
      transitionJob(tx, { id, event: 'succeed', epoch: 2, output: 1 }),
    );
    expect(done.ok && done.job.leaseUntil).toBeNull();
  });

  it('transitionJobs leaves exactly what transitionJob one by one leaves (random batches)', async () => {
    const { database } = ctx();
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            setup: fc.integer({ min: 0, max: SETUPS.length - 1 }),
            event: fc.constantFrom(...JOB_TRANSITIONS),
            epoch: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
            output: fc.option(fc.jsonValue(), { nil: undefined }),
            reason: fc.option(fc.constantFrom('MAX_ATTEMPTS', 'x'), { nil: undefined }),
            reset: fc.boolean(),
            twice: fc.boolean(),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (specs) => {
          round++;
          const now = Date.now();
          const twins: { bulk: string; single: string }[] = [];
          for (const s of specs) {
            const pair = { bulk: formatJobId('v1'), single: formatJobId('v1') };
            twins.push(pair);
            for (const id of [pair.bulk, pair.single]) {
              await repoWrite(database, async (tx) => {
                await insertJob(
                  tx,
                  {
                    id,
                    tenantId: 'twins',
                    kind: 'a.b',
                    version: 'v1',
                    input: { round },
                    inputHash: 'h',
                    maxAttempts: 5,
                  },
                  now,
                );
                for (const e of SETUPS[s.setup] as JobTransition[])
                  await transitionJob(tx, { id, event: e, leaseMs: 0 }, now);
              });
            }
          }
          const request = (id: string, s: (typeof specs)[number]): TransitionRequest => ({
            id,
            event: s.event,
            epoch: s.epoch,
            output: s.output,
            reason: s.reason,
            resetAttempts: s.reset,
            leaseMs: 1000,
            error: s.reason ? { kind: 'unknown', message: s.reason } : undefined,
          });
          const bulkReqs = specs.flatMap((s, i) =>
            s.twice
              ? [request(twins[i]!.bulk, s), request(twins[i]!.bulk, s)]
              : [request(twins[i]!.bulk, s)],
          );
          const singleReqs = specs.flatMap((s, i) =>
            s.twice
              ? [request(twins[i]!.single, s), request(twins[i]!.single, s)]
              : [request(twins[i]!.single, s)],
          );
          const later = now + 5;
          const bulk = await repoWrite(database, (tx) => transitionJobs(tx, bulkReqs, later));
          const single: boolean[] = [];
          await repoWrite(database, async (tx) => {
            for (const r of singleReqs) single.push((await transitionJob(tx, r, later)).ok);
          });
          // Outcomes per request may differ in order for repeats (grouped vs sequential), the end state may not.
          const norm = (j: JobRow | undefined) =>
            j && { ...j, id: '', attemptId: j.attemptId ? 'set' : null };
          for (const { bulk: b, single: s } of twins) {
            expect(norm(await getJobById(database.db, b))).toEqual(
              norm(await getJobById(database.db, s)),
            );
            const strip = (es: Awaited<ReturnType<typeof listEvents>>) =>
              es.map((e) => ({ ...e, jobId: '' }));
            expect(strip(await listEvents(database.db, b))).toEqual(
              strip(await listEvents(database.db, s)),
            );
          }
          expect(bulk.filter((r) => r.ok).length).toBe(single.filter(Boolean).length);
          for (const r of bulk) if (r.ok) expect(r.event.event.seq).toBe(r.job.lastSeq);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
  done();
}
