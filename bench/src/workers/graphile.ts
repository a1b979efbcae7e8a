// graphile-worker child: a pre-warmed pg pool and runTaskList (no migration check inside the timed
// window), localQueue and completeJobBatchDelay 0. `job:complete` is counted; the parent's settle
// step waits for the batched completions to commit.
import { EventEmitter } from 'node:events';
import { runTaskList, type WorkerEvents, type WorkerPool } from 'graphile-worker';
import pg from 'pg';
import type { CreateConsumer, JobPayload } from '../adapter.js';
import { parseGraphileConfig, quietLogger } from '../anchors/graphile-config.js';

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parseGraphileConfig(init.config);
  const pool = new pg.Pool({ connectionString: cfg.url, max: cfg.poolSize });
  pool.on('error', (error) => console.error(`graphile pool: ${error.message}`));
  pool.on('connect', (client) => client.on('error', () => undefined));
  // Open every connection now so connecting is not timed.
  const clients = await Promise.all(Array.from({ length: cfg.poolSize }, () => pool.connect()));
  for (const client of clients) client.release();
  const events: WorkerEvents = new EventEmitter();
  events.on('job:complete', () => hooks.completed(1));
  let workerPool: WorkerPool | undefined;
  return {
    start() {
      workerPool = runTaskList(
        {
          concurrency: init.concurrency,
          events,
          logger: quietLogger,
          noHandleSignals: true,
          preset: {
            worker: {
              localQueue: { size: cfg.localQueueSize },
              completeJobBatchDelay: 0,
              failJobBatchDelay: 0,
            },
          },
        },
        {
          noop: async (payload) => {
            await hooks.handle(payload as JobPayload);
          },
        },
        pool,
      );
    },
    async close() {
      await workerPool?.gracefulShutdown();
      await pool.end();
    },
  };
};
