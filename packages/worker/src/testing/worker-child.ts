// A worker as its own OS process, for the cross-process tests: the embedded runtime over the
// database at DB_URL (or the runtime of the module at RUNTIME_MODULE, a runtime package's test
// entry exporting `workerChildRuntime`), serving `xp.work` v1 whose jobs run UNITS units of UNIT_MS each and report
// progress per unit, tagged with this worker's id (so a test can tell whose writes landed).
// Prints `READY <probes url>`, `STARTED <jobId> <attempt>` and `UNIT <jobId> <key>` lines.
// With GO_FILE it loads, prints `LOADED`, and starts only once that file exists (so a test can
// have a second worker warm before the first one dies, and measure only the takeover).

import { defineJob } from '@sluice/contracts';
import { openDatabase } from '@sluice/storage';
import { z } from 'zod';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker } from '../create-worker.js';
import { defineHandler } from '../attempt/define-handler.js';
import { installShutdown } from '../host/install-shutdown.js';
import { createStderrLogger } from '../logger.js';
import { hooksFromEnv } from './seeded-bugs.js';
import type { WorkerChildRuntime } from './paid-child-runtime.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const workerId = env('WORKER_ID');
const unitMs = Number(env('UNIT_MS', '300'));
const units = Number(env('UNITS', '3'));
const leaseMs = Number(env('LEASE_MS', '1000'));

export const xpWork = defineJob({
  kind: 'xp.work',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ n: z.number().int(), by: z.string() }),
  progress: z.object({ step: z.number(), by: z.string() }),
});

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason as Error)), {
      once: true,
    });
  });

const handler = defineHandler(xpWork, {
  prepare: (ctx) => {
    process.stdout.write(`STARTED ${ctx.jobId} ${ctx.attempt}\n`);
    return Array.from({ length: units }, (_, i) => ({ key: `u${i}`, input: i }));
  },
  execute: async (unit, ctx) => {
    await sleep(unitMs, ctx.signal);
    ctx.progress({ step: unit.input, by: workerId });
    process.stdout.write(`UNIT ${ctx.jobId} ${unit.key}\n`);
    return unit.input;
  },
  finalize: (_results, ctx) => ({ n: ctx.input.n, by: workerId }),
});

const database = openDatabase({ url: env('DB_URL'), poolSize: 4 });
// Loaded by path so the worker package names no runtime package (they depend on it, not back).
const runtimeModule = process.env.RUNTIME_MODULE;
const external = runtimeModule
  ? (
      (await import(runtimeModule)) as { workerChildRuntime: WorkerChildRuntime }
    ).workerChildRuntime(env)
  : undefined;
const worker = createWorker({
  hooks: hooksFromEnv(database),
  jobs: { [xpWork.kind]: xpWork },
  handlers: { [xpWork.kind]: { v1: handler } },
  database,
  concurrency: Number(env('CONCURRENCY', '4')),
  // Units of one job run one after the other, so "mid-job" lasts units × UNIT_MS.
  unitConcurrency: 1,
  leaseMs,
  renewEveryMs: Number(env('RENEW_MS', String(Math.floor(leaseMs / 4)))),
  workerId,
  probes: { port: 0, hostname: '127.0.0.1' },
  logger: createStderrLogger(),
  ...external?.worker,
  runtime:
    external?.consumer ??
    ((ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 })),
  onSettled: (jobs) => {
    for (const j of jobs) process.stdout.write(`SETTLED ${j.jobId} ${j.outcome}\n`);
  },
});
installShutdown(
  {
    stop: async (opts) => {
      await worker.stop(opts);
      await database.close();
    },
  },
  { deadlineMs: 5000 },
);
const goFile = process.env.GO_FILE;
if (goFile) {
  const { existsSync } = await import('node:fs');
  process.stdout.write('LOADED\n');
  while (!existsSync(goFile)) await new Promise((r) => setTimeout(r, 5));
}
await worker.start();
process.stdout.write(`READY ${worker.probes?.url}\n`);
