// A worker as its own OS process for the crash-point matrix: the embedded runtime over DB_URL (or
// the runtime of the module at RUNTIME_MODULE, a runtime package's test entry), serving `xp.paid` against the fake provider at PROVIDER_URL,
// with assets in BLOB_DIR when given. `CRASHPOINTS=name@n` (read by hooksFromEnv() in
// seeded-bugs.ts) makes it SIGKILL itself at that point. Prints `READY`, and the job's
// `EXECUTE`/`FINALIZE` lines, plus `SETTLED <jobId> <outcome>`. With GO_FILE it loads, prints
// `LOADED`, and starts only once that file exists (warm before the crashing worker dies). With
// ROUNDS_DIR it runs one worker per round (the matrix's taker-over, loaded once for a suite).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalBlobStore, openDatabase } from '@sluice/storage';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker, type Worker } from '../create-worker.js';
import { installShutdown } from '../host/install-shutdown.js';
import { createStderrLogger } from '../logger.js';
import { paidHandler, paidJob } from './paid-job.js';
import type { RuntimeConsumerFactory } from '@sluice/contracts';
import { hooksFromEnv } from './seeded-bugs.js';
import type { PaidChildRuntime } from './paid-child-runtime.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const workerId = env('WORKER_ID');
const leaseMs = Number(env('LEASE_MS', '1000'));
const say = (line: string) => process.stdout.write(`${line}\n`);

const database = openDatabase({ url: env('DB_URL'), poolSize: 4 });
// With BLOB_DIR the job's assets go there; the staging sweeper runs every STAGING_SWEEP_MS.
const blobDir = process.env.BLOB_DIR;
const blobs = blobDir ? createLocalBlobStore(blobDir) : undefined;
// Loaded by path so the worker package names no runtime package (they depend on it, not back).
const runtimeModule = process.env.RUNTIME_MODULE;
const external: RuntimeConsumerFactory | undefined = runtimeModule
  ? ((await import(runtimeModule)) as { paidChildRuntime: PaidChildRuntime }).paidChildRuntime(env)
  : undefined;
const makeWorker = () =>
  createWorker({
    hooks: hooksFromEnv(database),
    jobs: { [paidJob.kind]: paidJob },
    handlers: {
      [paidJob.kind]: { v1: paidHandler({ providerUrl: env('PROVIDER_URL'), workerId, log: say }) },
    },
    database,
    blobs,
    stagingSweepEveryMs: Number(env('STAGING_SWEEP_MS', '300')),
    concurrency: Number(env('CONCURRENCY', '2')),
    // Units one after the other: "after the first unit's checkpoint" is a well-defined moment.
    unitConcurrency: 1,
    leaseMs,
    renewEveryMs: Math.floor(leaseMs / 4),
    // Liveness beat and death age (LIVENESS_MS, DEAD_AFTER_MS); the worker's defaults otherwise.
    livenessEveryMs: process.env.LIVENESS_MS ? Number(process.env.LIVENESS_MS) : undefined,
    deadAfterMs: process.env.DEAD_AFTER_MS ? Number(process.env.DEAD_AFTER_MS) : undefined,
    sweepEveryMs: 0,
    retryBackoff: { baseMs: 20, maxMs: 100 },
    workerId,
    logger: createStderrLogger(),
    // RUNTIME_MODULE (a runtime package's test entry) picks the runtime; the default is embedded.
    runtime:
      external ?? ((ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 })),
    onSettled: (jobs) => {
      for (const j of jobs) say(`SETTLED ${j.jobId} ${j.outcome}`);
    },
  });
let worker: Worker | undefined;
installShutdown(
  {
    stop: async (opts) => {
      await worker?.stop(opts);
      await database.close();
    },
  },
  { deadlineMs: 3000 },
);
const waitForFile = async (path: string) => {
  while (!existsSync(path)) await new Promise((r) => setTimeout(r, 5));
};

const roundsDir = process.env.ROUNDS_DIR;
if (roundsDir) {
  // One worker per round, in this one process: `go-<n>` starts round n, `stop-<n>` drains it.
  say('LOADED');
  for (let round = 1; ; round++) {
    await waitForFile(join(roundsDir, `go-${round}`));
    worker = makeWorker();
    await worker.start();
    say(`READY ${round}`);
    await waitForFile(join(roundsDir, `stop-${round}`));
    await worker.stop({ deadlineMs: 3000 });
    say(`STOPPED ${round}`);
  }
} else {
  const goFile = process.env.GO_FILE;
  if (goFile) {
    say('LOADED');
    await waitForFile(goFile);
  }
  worker = makeWorker();
  await worker.start();
  say(`READY ${workerId}`);
}
