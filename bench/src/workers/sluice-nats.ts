// Sluice NATS worker child (rows 1–3): `createWorker` + `createNatsConsumer` on the suite's
// private nats-server, state in the bench's PostgreSQL database without NOTIFY (as the Streams
// child; the NATS runtime carries no events, so a gateway tails the database instead, and this
// row has no commit → subscriber figure), product defaults (pull batch, lease, block time), the
// served-versions heartbeat on the database as the CLI wires it, a no-op handler with one unit. A
// job counts once `onSettled` reports it: its terminal transition is committed and its message
// acknowledged. Latency runs note, as `read` hands a delivery out, the time the server stored its
// message (from the ack subject): dispatch → start is measured from there.
import { openDatabase } from '@sluice/storage';
import { createWorker, type Worker } from '@sluice/worker';
import { createNatsConsumer, type NatsConsumer } from '@sluice/runtime-nats';
import type { CreateConsumer } from '../adapter.js';
import { BENCH_KIND, BENCH_VERSION, benchHandler, benchJobs } from '../sluice/bench-job.js';
import { parseNatsChildConfig, storedAtOfReply } from '../sluice/nats-config.js';
import { installSqlStats } from '../sluice/sql-stats.js';
import { closeDatabase } from '../sluice/close-database.js';
import { countSettled } from '../sluice/count-settled.js';
import { monoMs } from '../harness/clock.js';

export { createProducer } from './sluice-nats-producer.js';

/** Per job, the dispatch stamp on the monotonic clock and when `read` handed it out. */
function stampReads(consumer: NatsConsumer, stamps: Map<string, { at: number; read: number }>) {
  return {
    ...consumer,
    async read(max: number, signal?: AbortSignal) {
      const deliveries = await consumer.read(max, signal);
      const read = monoMs();
      // Wall clock → monotonic once per read: the server's stamp is a wall-clock time.
      const offset = Date.now() - read;
      for (const d of deliveries) {
        const stored = storedAtOfReply(d.reply);
        if (stored !== undefined && d.pointer)
          stamps.set(d.pointer.jobId, { at: stored - offset, read });
      }
      return deliveries;
    },
  } satisfies NatsConsumer;
}

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parseNatsChildConfig(init.config);
  const sqlStats = installSqlStats();
  const database = openDatabase({ url: cfg.pgUrl, poolSize: cfg.poolSize, notifyEvents: false });
  // Open the pool's connections now, so connecting is not timed (as for the Streams row).
  const pool = database.pgPool;
  if (pool) {
    const clients = await Promise.all(Array.from({ length: cfg.poolSize }, () => pool.connect()));
    for (const client of clients) client.release();
  }
  const stamps = cfg.latency ? new Map<string, { at: number; read: number }>() : undefined;
  const counter = countSettled('sluice-nats', (n) => hooks.completed(n));
  const worker: Worker = createWorker({
    jobs: benchJobs,
    handlers: {
      [BENCH_KIND]: {
        [BENCH_VERSION]: benchHandler((job, jobId) => {
          if (!stamps) return hooks.handle(job);
          const stamp = stamps.get(jobId);
          stamps.delete(jobId);
          // Every message the producer published is stored with a stamp: a missing one is a
          // bench bug, and the failed job shows in the end-state check, not as a made-up sample.
          if (stamp === undefined) throw new Error(`no dispatch stamp for ${jobId}`);
          hooks.record('dispatchToRead', Math.max(0, stamp.read - stamp.at), job);
          hooks.record('readToStart', monoMs() - stamp.read, job);
          return hooks.handle(job, stamp.at);
        }),
      },
    },
    runtime: (ctx) => {
      const consumer = createNatsConsumer({
        url: cfg.natsUrl,
        prefix: cfg.prefix,
        database,
        ...ctx,
      });
      return stamps ? stampReads(consumer, stamps) : consumer;
    },
    database,
    concurrency: init.concurrency,
    // Stable per child, as SLUICE_WORKER_ID gives a deployed worker.
    workerId: `bench-${init.index}`,
    onSettled: counter.onSettled,
  });
  return {
    start: () => worker.start(),
    async close() {
      await worker.stop({ deadlineMs: 2_000 });
      await closeDatabase(database);
      sqlStats?.write(`nats-${process.pid}`, counter.settled);
    },
  };
};
