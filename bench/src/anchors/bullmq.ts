// BullMQ anchors, parent side: prefill with addBulk in batches of 1,000, 4 in flight (untimed).
// Two participants run the same code on different private redis-servers: `bullmq` without
// persistence (the fastest BullMQ can be) and `bullmq-aof` with `appendonly yes, appendfsync
// everysec`, the setup BullMQ's documentation recommends for production (a crash loses at most
// about one second of writes), beside which a Sluice job's durability is compared.
import { Queue } from 'bullmq';
import type { BenchAdapter, BenchServices, JobPayload, RedisService } from '../adapter.js';
import {
  BULLMQ_JOB_OPTIONS,
  useIovalkeyForBullmq,
  type BullmqChildConfig,
} from './bullmq-connection.js';

const PREFILL_BATCH = 1_000;
const PREFILL_IN_FLIGHT = 4;
const WORKER_MODULE = new URL('../workers/bullmq.ts', import.meta.url).href;

type Persistence = 'none' | 'aof';

function serverFor(services: BenchServices, persistence: Persistence): RedisService {
  const server = persistence === 'aof' ? services.redisAof : services.redis;
  if (!server)
    throw new Error(`bullmq needs the ${persistence === 'aof' ? 'AOF ' : ''}redis-server`);
  return server;
}

function createBullmqAdapter(persistence: Persistence): BenchAdapter {
  return {
    id: persistence === 'aof' ? 'bullmq-aof' : 'bullmq',
    label: persistence === 'aof' ? 'BullMQ (AOF everysec)' : 'BullMQ',
    needs: [persistence === 'aof' ? 'redis-aof' : 'redis'],
    packages: ['bullmq', 'iovalkey'],
    durableWork:
      'Redis: the job hash and its id moved wait → active, then removed on completion ' +
      '(removeOnComplete); kept only as Redis keeps it: ' +
      (persistence === 'aof'
        ? 'AOF with fsync every second (a crash loses up to about 1 s).'
        : 'no persistence (a crash loses everything).'),
    queue: {
      consumerModule: WORKER_MODULE,
      producerModule: WORKER_MODULE,
      async prepare(services, spec) {
        const server = serverFor(services, persistence);
        useIovalkeyForBullmq();
        const child: BullmqChildConfig = {
          host: server.host,
          port: server.port,
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
              Array.from({ length: size }, (_, k) => ({
                name: 'noop',
                data: { i: from + k, t: 0 },
              })),
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
}

export const bullmqAdapter = createBullmqAdapter('none');
export const bullmqAofAdapter = createBullmqAdapter('aof');
