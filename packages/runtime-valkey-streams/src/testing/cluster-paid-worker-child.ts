// A paid worker process on Redis Cluster (the failover test): serves `xp.paid` under each kind in
// KINDS (the same handler and declarations, so jobs of several kinds land on several hash slots)
// against the fake provider at PROVIDER_URL, assets in BLOB_DIR, the Streams runtime at REDIS_URL
// (`redis+cluster://…`). Prints `READY <id>` and `SETTLED <jobId> <outcome>`.

import { createLocalBlobStore, openDatabase } from '@sluice/storage';
import { createStderrLogger, createWorker, installShutdown } from '@sluice/worker';
import { paidHandler, paidJob } from '@sluice/worker/conformance';
import { createStreamsRuntime } from '../worker/create-streams-runtime.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};
const say = (line: string) => process.stdout.write(`${line}\n`);
const workerId = env('WORKER_ID');
const leaseMs = Number(env('LEASE_MS', '1500'));
const kinds = env('KINDS', paidJob.kind).split(',');
const database = openDatabase({ url: env('DB_URL'), poolSize: 4 });
const blobs = createLocalBlobStore(env('BLOB_DIR'));
const handler = paidHandler({ providerUrl: env('PROVIDER_URL'), workerId, log: say });
// One definition per kind, the paid job's under another name (a handler names its job's kind).
const jobs = Object.fromEntries(kinds.map((kind) => [kind, { ...paidJob, kind }]));
const handlers = Object.fromEntries(
  kinds.map((kind) => [kind, { v1: { ...handler, job: jobs[kind] } }]),
);

const worker = createWorker({
  jobs: jobs as never,
  handlers: handlers as never,
  database,
  blobs,
  stagingSweepEveryMs: 500,
  concurrency: Number(env('CONCURRENCY', '8')),
  unitConcurrency: 1,
  leaseMs,
  renewEveryMs: Math.floor(leaseMs / 4),
  sweepEveryMs: 0,
  retryBackoff: { baseMs: 20, maxMs: 200 },
  workerId,
  logger: createStderrLogger(),
  runtime: (ctx) =>
    createStreamsRuntime({
      ...ctx,
      redisUrl: env('REDIS_URL'),
      blockMs: 500,
      claimEveryMs: 200,
      heartbeatEveryMs: 500,
      maintainEveryMs: 1000,
      commandTimeoutMs: 2000,
    }),
  onSettled: (settled) => {
    for (const j of settled) say(`SETTLED ${j.jobId} ${j.outcome}`);
  },
});
installShutdown(
  {
    stop: async (opts) => {
      await worker.stop(opts);
      await database.close();
    },
  },
  { deadlineMs: 3000 },
);
await worker.start();
say(`READY ${workerId}`);
