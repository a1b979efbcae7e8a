// What a waiting job costs, measured (docs/composition.md quotes the figures): N jobs suspend on
// `ctx.waitForEvent` under a real embedded worker; then the rows and bytes each one holds, the
// worker process's CPU over an idle window with all of them waiting (against the same window
// with none), and the due sweep's pass time over them. Run with:
//   npx tsx --conditions=@sluice/source src/testing/measure-waiting.ts [sqlite|postgres] [N]

import { defineJob, formatJobId, type MessagePointer } from '@sluice/contracts';
import { enqueue, insertJob, sweepCandidates, transitionJob } from '@sluice/storage';
import { createTestDatabase } from '@sluice/storage/testing';
import { z } from 'zod';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker } from '../create-worker.js';
import { defineHandler } from '../attempt/define-handler.js';
import { silentLogger } from '../logger.js';

const dialect = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const N = Number(process.argv[3] ?? 1000);
const IDLE_MS = 10_000;

const job = defineJob({
  kind: 'measure.wait',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ ok: z.boolean() }),
  events: { approved: z.object({ ok: z.boolean() }) },
});
const handler = defineHandler(job, {
  prepare: async (ctx) => [{ key: 'u', input: (await ctx.waitForEvent('approved')).ok }],
  execute: (unit) => unit.input,
  finalize: (results) => ({ ok: results[0]?.result === true }),
});

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main(): Promise<void> {
  const test = await createTestDatabase(dialect);
  const { database } = test;
  const worker = createWorker({
    jobs: { [job.kind]: job },
    handlers: { [job.kind]: { v1: handler } },
    database,
    blobs: undefined,
    concurrency: 16,
    logger: silentLogger,
    sweepEveryMs: 0,
    runtime: (ctx) =>
      createEmbeddedRuntime({
        database,
        workerId: ctx.workerId,
        versions: ctx.versions,
        leaseMs: ctx.leaseMs,
      }),
  });
  await worker.start();
  const idle = async () => {
    const c0 = cpuMs();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return cpuMs() - c0;
  };
  const cpuNone = await idle();

  const pointers: MessagePointer[] = Array.from({ length: N }, () => ({
    jobId: formatJobId('v1'),
    kind: job.kind,
    version: 'v1',
    tenantId: 'acme',
  }));
  await database.transaction(async (tx) => {
    for (const [i, p] of pointers.entries()) {
      await insertJob(tx, {
        id: p.jobId,
        tenantId: 'acme',
        kind: job.kind,
        version: 'v1',
        input: { n: i },
        inputHash: `h${i}`,
        maxAttempts: 5,
      });
      await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
    }
    await enqueue(tx, pointers);
  });
  const t0 = Date.now();
  for (;;) {
    const r = await database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('state', '=', 'waiting')
      .executeTakeFirstOrThrow();
    if (Number(r.n) === N) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const suspendMs = Date.now() - t0;
  const cpuWaiting = await idle();

  const count = async (table: 'jobs' | 'job_waits' | 'job_events' | 'units' | 'job_signals') =>
    Number(
      (
        await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const rows = {
    jobs: await count('jobs'),
    job_waits: await count('job_waits'),
    job_events: await count('job_events'),
    units: await count('units'),
    job_signals: await count('job_signals'),
  };
  // Bytes of a wait row's values as text (the row's payload; each database adds its row header).
  const waits = await database.db.selectFrom('job_waits').selectAll().execute();
  const waitBytes =
    waits.reduce(
      (sum, w) =>
        sum +
        Object.values(w).reduce<number>(
          (n, v) =>
            n + (v === null ? 0 : typeof v === 'string' ? v.length : JSON.stringify(v).length),
          0,
        ),
      0,
    ) / Math.max(1, waits.length);
  const s0 = performance.now();
  const candidates = await sweepCandidates(database.db, Date.now(), 500);
  const sweepMs = performance.now() - s0;
  await worker.stop({ deadlineMs: 2000 });
  await test.dispose();
  console.log(
    JSON.stringify(
      {
        dialect,
        waitingJobs: N,
        suspendAllMs: suspendMs,
        rows,
        waitRowBytes: Math.round(waitBytes),
        workerCpuMsOver10sIdle: {
          noneWaiting: Math.round(cpuNone),
          allWaiting: Math.round(cpuWaiting),
        },
        sweepPassMs: Math.round(sweepMs * 100) / 100,
        sweepCandidates: candidates.length,
      },
      null,
      2,
    ),
  );
}

await main();
