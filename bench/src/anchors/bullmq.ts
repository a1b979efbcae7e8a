// BullMQ anchor, parent side: prefill with addBulk in batches of 1,000, 4 in flight (untimed).
import { Queue } from 'bullmq';
import type { BenchAdapter, JobPayload } from '../adapter.js';
import {
  BULLMQ_JOB_OPTIONS,
  useIovalkeyForBullmq,
  type BullmqChildConfig,
} from './bullmq-connection.js';

const PREFILL_BATCH = 1_000;
const PREFILL_IN_FLIGHT = 4;
const WORKER_MODULE = new URL('../workers/bullmq.ts', import.meta.url).href;

export const bullmqAdapter: BenchAdapter = {
  id: 'bullmq',
  label: 'BullMQ',
  needs: ['redis'],
  packages: ['bullmq', 'iovalkey'],
  queue: {
    consumerModule: WORKER_MODULE,
    producerModule: WORKER_MODULE,
    async prepare(services, spec) {
      if (!services.redis) throw new Error('bullmq needs redis');
      useIovalkeyForBullmq();
      const child: BullmqChildConfig = {
        host: services.redis.host,
        port: services.redis.port,
        queue: `bench-${spec.runId}`,
      };
      const queue = new Queue<JobPayload>(child.queue, {
        connection: { host: child.host, port: child.port },
        defaultJobOptions: BULLMQ_JOB_OPTIONS,
      });
      try {
        // A few batches in flight: the prefill is untimed, and the queue ends up the same.
        const batches: Promise<unknown>[] = [];
        for (let from = 0; from < spec.jobs; from += PREFILL_BATCH) {
          const size = Math.min(PREFILL_BATCH, spec.jobs - from);
          if (batches.length >= PREFILL_IN_FLIGHT) await batches.shift();
          const batch = queue.addBulk(
            Array.from({ length: size }, (_, k) => ({ name: 'noop', data: { i: from + k, t: 0 } })),
          );
          batch.catch(() => undefined); // observed by the awaits around it
          batches.push(batch);
        }
        await Promise.all(batches);
      } finally {
        await queue.close();
      }
      return { child: { ...child }, cleanup: async () => undefined };
    },
  },
};
