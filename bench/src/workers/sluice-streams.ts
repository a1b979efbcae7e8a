// Sluice Streams worker child (rows 1–3): `createWorker` + `createStreamsRuntime` on the private
// redis-server, state in the bench's PostgreSQL database without NOTIFY (as the CLI runs a
// Streams worker), product defaults (read batch, lease, block time), a no-op handler with one unit. A job counts once `onSettled` reports it: its
// terminal transition is committed and its entry acknowledged. Latency runs wrap the runtime in
// the probe (streams-probe.ts) for the dispatch and commit stamps and tail the events stream.
import { openDatabase } from '@sluice/storage';
import { createWorker, type Worker } from '@sluice/worker';
import type { CreateConsumer } from '../adapter.js';
import { BENCH_KIND, BENCH_VERSION, benchHandler, benchJobs } from '../sluice/bench-job.js';
import { parseStreamsChildConfig } from '../sluice/streams-config.js';
import { createStreamsProbe, tailEvents } from '../sluice/streams-probe.js';
import { installSqlStats } from '../sluice/sql-stats.js';
import { closeDatabase } from '../sluice/close-database.js';
import { countSettled } from '../sluice/count-settled.js';
import { monoMs } from '../harness/clock.js';
import { createStreamsRuntime } from '@sluice/runtime-valkey-streams';

export { createProducer } from './sluice-streams-producer.js';

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parseStreamsChildConfig(init.config);
  const sqlStats = installSqlStats();
  // As the CLI opens it for a Valkey Streams worker (packages/cli resources.ts): the events travel
  // on the events stream, so PostgreSQL NOTIFY would only cost (it serialises commits on a lock).
  const database = openDatabase({ url: cfg.pgUrl, poolSize: cfg.poolSize, notifyEvents: false });
  // Open the pool's connections now, so connecting is not timed (as for graphile-worker).
  const pool = database.pgPool;
  if (pool) {
    const clients = await Promise.all(Array.from({ length: cfg.poolSize }, () => pool.connect()));
    for (const client of clients) client.release();
  }
  const probe = cfg.latency ? createStreamsProbe() : undefined;
  // jobId → payload, for the commit → subscriber samples (the harness filters warm-up by index).
  const payloads = new Map<string, { i: number; t: number }>();
  const tail = probe
    ? tailEvents(cfg.redisUrl, (jobId, at) => {
        const committed = probe.committedAt(jobId);
        const job = payloads.get(jobId);
        if (committed !== undefined && job) hooks.record('commitToSubscriber', at - committed, job);
      })
    : undefined;
  const counter = countSettled('sluice-streams', (n) => hooks.completed(n));
  const worker: Worker = createWorker({
    jobs: benchJobs,
    handlers: {
      [BENCH_KIND]: {
        [BENCH_VERSION]: benchHandler((job, jobId) => {
          if (!probe) return hooks.handle(job);
          payloads.set(jobId, job);
          const dispatchedAt = probe.dispatchedAt(jobId);
          // Every entry the producer wrote is stamped: a missing stamp is a bench bug, and the
          // failed job shows in the end-state check rather than as a made-up sample.
          if (dispatchedAt === undefined) throw new Error(`no dispatch stamp for ${jobId}`);
          // dispatch→start split at the read's return (transport | admission and slot), in detail.
          const readAt = probe.readAt(jobId);
          if (readAt !== undefined) {
            hooks.record('dispatchToRead', readAt - dispatchedAt, job);
            // …split again at the call of the read that returned it: how long the entry waited
            // for the host to ask (its read loop busy), then how long that read took to answer.
            const called = probe.readCalledAt(jobId) ?? readAt;
            hooks.record('dispatchToReadCall', Math.max(0, called - dispatchedAt), job);
            hooks.record('readCallToRead', readAt - Math.max(called, dispatchedAt), job);
            hooks.record('readToStart', monoMs() - readAt, job);
          }
          return hooks.handle(job, dispatchedAt);
        }),
      },
    },
    runtime: (ctx) => {
      const runtime = createStreamsRuntime({ redisUrl: cfg.redisUrl, ...ctx });
      return probe ? probe.observe(runtime) : runtime;
    },
    database,
    concurrency: init.concurrency,
    // Stable per child, as SLUICE_WORKER_ID gives a deployed worker (its consumer name).
    workerId: `bench-${init.index}`,
    onSettled: counter.onSettled,
  });
  return {
    start: () => worker.start(),
    async close() {
      tail?.close();
      await worker.stop({ deadlineMs: 2_000 });
      await closeDatabase(database);
      sqlStats?.write(`streams-${process.pid}`, counter.settled);
    },
  };
};
