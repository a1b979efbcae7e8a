// Absurd child: one `Absurd` client per process on a pg pool of 10 (opened before `go`), the task
// `bench` registered with a handler whose first line is the harness hook and whose one step is a
// no-op `ctx.step` (a checkpoint row, Absurd's durable step), `startWorker` with concurrency c,
// batchSize c (the SDK's default: its claim fills every free slot) and a 10 ms idle poll. A task is
// reported when its handler returns; the parent's settle step waits for `complete_run` to commit.
// The producer spawns one task per `spawn()`.
import { Absurd } from 'absurd-sdk';
import pg from 'pg';
import type { CreateConsumer, CreateProducer, JobPayload } from '../adapter.js';
import {
  ABSURD_POLL_SECONDS,
  ABSURD_QUEUE,
  ABSURD_TASK,
  parseAbsurdConfig,
} from '../durable/absurd-config.js';

/** Warnings and errors only: the SDK's per-task lines would cost more than the tasks. */
const quiet = {
  log: () => undefined,
  info: () => undefined,
  warn: (...args: unknown[]) => console.warn('absurd:', ...args),
  error: (...args: unknown[]) => console.error('absurd:', ...args),
};

async function openPool(url: string, size: number): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: size });
  pool.on('error', (error) => console.error(`absurd pool: ${error.message}`));
  const clients = await Promise.all(Array.from({ length: size }, () => pool.connect()));
  for (const client of clients) client.release();
  return pool;
}

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parseAbsurdConfig(init.config);
  const pool = await openPool(cfg.url, cfg.poolSize);
  const app = new Absurd({ db: pool, queueName: ABSURD_QUEUE, log: quiet });
  app.registerTask({ name: ABSURD_TASK }, async (params: JobPayload, ctx) => {
    await hooks.handle(params);
    await ctx.step('noop', async () => 1);
    hooks.completed(1);
    return null;
  });
  let worker: { close(): Promise<void> } | undefined;
  return {
    async start() {
      worker = await app.startWorker({
        workerId: `bench-${init.index}`,
        concurrency: init.concurrency,
        batchSize: init.concurrency,
        pollInterval: ABSURD_POLL_SECONDS,
        claimTimeout: 60,
        onError: (error) => console.error(`absurd worker: ${error.message}`),
      });
    },
    async close() {
      await worker?.close();
      await pool.end();
    },
  };
};

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseAbsurdConfig(init.config);
  const pool = await openPool(cfg.url, cfg.poolSize);
  const app = new Absurd({ db: pool, queueName: ABSURD_QUEUE, log: quiet });
  return {
    add: async (job) => {
      await app.spawn(ABSURD_TASK, job, { queue: ABSURD_QUEUE });
    },
    close: () => pool.end(),
  };
};
