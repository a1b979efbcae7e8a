// A quick in-process throughput probe of the embedded runtime (not the benchmark): N jobs are
// inserted up front, one worker drains them, and the figures say how many database round trips
// the batching saved. Run: npx tsx --conditions=@sluice/source src/testing/measure-throughput.ts
//   [jobs=2000] [concurrency=32] [readBatch=] [units=0|1] [dialects=sqlite,postgres]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineJob, formatJobId } from '@sluice/contracts';
import {
  enqueue,
  insertJob,
  migrate,
  openDatabase,
  transitionJob,
  type DialectName,
  type SluiceDatabase,
} from '@sluice/storage';
import { createPgDatabase } from '@sluice/testkit';
import { z } from 'zod';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker } from '../create-worker.js';
import { defineHandler } from '../attempt/define-handler.js';
import { silentLogger } from '../logger.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.split('=') as [string, string]));
const jobs = Number(args.jobs ?? 2000);
const concurrency = Number(args.concurrency ?? 32);
const units = Number(args.units ?? 0);
const readBatch = args.readBatch ? Number(args.readBatch) : undefined;
const dialects = (args.dialects ?? 'sqlite,postgres').split(',') as DialectName[];

const noop = defineJob({
  kind: 'bench.noop',
  versions: { current: 'v1' },
  input: z.object({ i: z.number() }),
  output: z.object({ i: z.number() }),
});
const handler = defineHandler(noop, {
  prepare: () => Array.from({ length: units }, (_, k) => ({ key: `u${k}`, input: k })),
  execute: (u) => u.input,
  finalize: (_r, ctx) => ({ i: ctx.input.i }),
});

async function fill(database: SluiceDatabase): Promise<void> {
  for (let start = 0; start < jobs; start += 500) {
    const pointers = Array.from({ length: Math.min(500, jobs - start) }, () => ({
      jobId: formatJobId('v1'),
      kind: noop.kind,
      version: 'v1',
      tenantId: 'bench',
    }));
    await database.transaction(async (tx) => {
      for (const [k, p] of pointers.entries()) {
        await insertJob(tx, {
          id: p.jobId,
          tenantId: 'bench',
          kind: p.kind,
          version: 'v1',
          input: { i: start + k },
          inputHash: 'x',
          maxAttempts: 5,
        });
        await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
      }
      await enqueue(tx, pointers);
    });
  }
}

async function run(dialect: DialectName): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-tp-'));
  const pg = dialect === 'postgres' ? await createPgDatabase({ prefix: 'sluice_tp' }) : undefined;
  const database = openDatabase({ url: pg?.url ?? join(dir, 'db.sqlite'), poolSize: 10 });
  await migrate(database);
  await fill(database);
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  const worker = createWorker({
    jobs: { [noop.kind]: noop },
    handlers: { [noop.kind]: { v1: handler } },
    database,
    concurrency,
    readBatch,
    logger: silentLogger,
    sweepEveryMs: 0,
    runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 5 }),
    onSettled: (settled) => {
      done += settled.length;
      if (done >= jobs) finished();
    },
  });
  const t0 = performance.now();
  await worker.start();
  await all;
  const ms = performance.now() - t0;
  const m = worker.metrics();
  await worker.stop({ deadlineMs: 2000 });
  await database.close();
  await pg?.drop();
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `${dialect}: ${jobs} jobs, ${units} unit(s) each, concurrency ${concurrency}, readBatch ${readBatch ?? 'default'}: ${ms.toFixed(0)} ms = ${((jobs / ms) * 1000).toFixed(0)} jobs/s; ` +
      `terminal transactions ${m.terminalBatches} (${(jobs / m.terminalBatches).toFixed(1)} jobs each), events written apart ${m.eventsWritten}`,
  );
}

for (const d of dialects) await run(d);
