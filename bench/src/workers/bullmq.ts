// BullMQ anchor, child side: one Worker per process (consumer) or one Queue issuing single adds
// (open-loop producer). Completion counts on the `completed` event, after BullMQ's own
// moveToFinished round trip.
import { Queue, Worker } from 'bullmq';
import type { CreateConsumer, CreateProducer, JobPayload } from '../adapter.js';
import {
  BULLMQ_JOB_OPTIONS,
  parseBullmqConfig,
  useIovalkeyForBullmq,
} from '../anchors/bullmq-connection.js';

export const createConsumer: CreateConsumer = async (init, hooks) => {
  useIovalkeyForBullmq();
  const cfg = parseBullmqConfig(init.config);
  const worker = new Worker<JobPayload>(
    cfg.queue,
    async (job) => {
      await hooks.handle(job.data);
    },
    {
      connection: { host: cfg.host, port: cfg.port },
      concurrency: init.concurrency,
      autorun: false,
    },
  );
  worker.on('completed', () => hooks.completed(1));
  worker.on('error', (error) => console.error(`bullmq worker: ${error.message}`));
  await worker.waitUntilReady();
  return {
    start: () => worker.run(),
    close: () => worker.close(),
  };
};

export const createProducer: CreateProducer = async (init) => {
  useIovalkeyForBullmq();
  const cfg = parseBullmqConfig(init.config);
  const queue = new Queue<JobPayload>(cfg.queue, {
    connection: { host: cfg.host, port: cfg.port },
    defaultJobOptions: BULLMQ_JOB_OPTIONS,
  });
  await queue.waitUntilReady();
  return {
    add: async (job) => {
      await queue.add('noop', job);
    },
    close: () => queue.close(),
  };
};
