// A worker on the valkey-streams runtime as its own OS process, for the cross-process tests:
// reads REDIS_URL (a private redis-server, or a fault proxy in front of it) and the database at
// DB_URL, serves `xp.work` v1 whose jobs run UNITS units of UNIT_MS each and report progress per
// unit, tagged with this worker's id. Prints `READY <probes url>`, `STARTED <jobId> <attempt>`,
// `UNIT <jobId> <key>` and `SETTLED <jobId> <outcome>`. With GO_FILE it prints `LOADED` and
// starts only once that file exists (warm before another worker dies, so only the takeover counts).

import { existsSync } from 'node:fs';
import { defineJob } from '@sluice/contracts';
import { openDatabase } from '@sluice/storage';
import { z } from 'zod';
import { createStreamsRuntime } from '../worker/create-streams-runtime.js';
import { createWorker } from '@sluice/worker';
import { defineHandler } from '@sluice/worker';
import { installShutdown } from '@sluice/worker';
import { createStderrLogger } from '@sluice/worker';
import { hooksFromEnv } from '@sluice/worker/conformance';
import { renewScriptFromEnv } from './renew-script.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};
const num = (name: string, fallback: number) => Number(env(name, String(fallback)));

const workerId = env('WORKER_ID');
const unitMs = num('UNIT_MS', 300);
const units = num('UNITS', 3);
const leaseMs = num('LEASE_MS', 1000);

const xpWork = defineJob({
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
const logger = createStderrLogger();
const worker = createWorker({
  hooks: hooksFromEnv(database),
  jobs: { [xpWork.kind]: xpWork },
  handlers: { [xpWork.kind]: { v1: handler } },
  database,
  concurrency: num('CONCURRENCY', 4),
  // Units of one job run one after the other, so "mid-job" lasts units × UNIT_MS.
  unitConcurrency: 1,
  leaseMs,
  renewEveryMs: num('RENEW_MS', Math.floor(leaseMs / 4)),
  unreadyAfterReadFailures: num('UNREADY_AFTER', 3),
  workerId,
  probes: { port: 0, hostname: '127.0.0.1' },
  logger,
  retryBackoff: { baseMs: 50, maxMs: 200 },
  runtime: (ctx) =>
    createStreamsRuntime({
      renewScript: renewScriptFromEnv(),
      ...ctx,
      redisUrl: env('REDIS_URL'),
      blockMs: num('BLOCK_MS', 500),
      watchdogMarginMs: num('WATCHDOG_MARGIN_MS', 1000),
      commandTimeoutMs: num('COMMAND_TIMEOUT_MS', 2000),
      claimEveryMs: num('CLAIM_EVERY_MS', 200),
      heartbeatEveryMs: 500,
      maintainEveryMs: 1000,
    }),
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
  process.stdout.write('LOADED\n');
  while (!existsSync(goFile)) await new Promise((r) => setTimeout(r, 5));
}
await worker.start();
process.stdout.write(`READY ${worker.probes?.url}\n`);
