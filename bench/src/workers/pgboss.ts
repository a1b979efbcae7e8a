// pg-boss 12 child: one PgBoss instance per process (its own pool of 10, LISTEN/NOTIFY on for the
// queue's `notify`, maintenance on as in production, no cron), `work()` with localConcurrency ×
// batchSize = c and `burstWhenBatchFull` (fetch again at once while batches come back full). The
// handler runs the batch's jobs side by side; a job is reported when the handler returns, and the
// parent's settle step waits for pg-boss's completion to commit. The producer sends one job per
// `send()`.
import { PgBoss } from 'pg-boss';
import type { CreateConsumer, CreateProducer, JobPayload } from '../adapter.js';
import { PGBOSS_QUEUE, PGBOSS_SCHEMA, parsePgBossConfig } from '../durable/pgboss-config.js';
import { CHILD_APPLICATION_NAME } from '../harness/pg-cost.js';

function childBoss(url: string, poolSize: number): PgBoss {
  const boss = new PgBoss({
    connectionString: url,
    schema: PGBOSS_SCHEMA,
    // pg-boss names its connections itself; the cost probe waits for this name.
    application_name: CHILD_APPLICATION_NAME,
    max: poolSize,
    // pg-boss waits 10 s for a pool connection by default; an open loop that outruns it on a
    // loaded machine would fail the run instead of reporting the backlog it built.
    connectionTimeoutMillis: 60_000,
    migrate: false,
    schedule: false,
    useListenNotify: true,
  });
  boss.on('error', (error: Error) => console.error(`pg-boss: ${error.message}`));
  return boss;
}

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parsePgBossConfig(init.config);
  const boss = childBoss(cfg.url, cfg.poolSize);
  await boss.start();
  return {
    async start() {
      await boss.work<JobPayload>(
        PGBOSS_QUEUE,
        {
          localConcurrency: cfg.localConcurrency,
          batchSize: cfg.batchSize,
          burstWhenBatchFull: true,
          // The smallest poll pg-boss allows; LISTEN/NOTIFY wakes the workers sooner.
          pollingIntervalSeconds: 0.5,
        },
        async (jobs) => {
          await Promise.all(jobs.map((job) => hooks.handle(job.data)));
          hooks.completed(jobs.length);
        },
      );
    },
    // Graceful: handlers in flight finish and their batches complete before the pool closes.
    close: () => boss.stop({ graceful: true, close: true, timeout: 10_000 }),
  };
};

export const createProducer: CreateProducer = async (init) => {
  const cfg = parsePgBossConfig(init.config);
  const boss = childBoss(cfg.url, cfg.poolSize);
  await boss.start();
  return {
    add: async (job) => {
      await boss.send(PGBOSS_QUEUE, job);
    },
    close: () => boss.stop({ graceful: false, close: true }),
  };
};
