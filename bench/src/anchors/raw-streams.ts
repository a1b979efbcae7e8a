// The physical limit on this machine: Redis Streams consumer groups with no database, no job
// state, no retries. Parent side: create the group and prefill with pipelined XADD (untimed).
import { Redis } from 'iovalkey';
import type { BenchAdapter } from '../adapter.js';
import type { RawStreamsConfig } from './raw-streams-config.js';

const PREFILL_BATCH = 1_000;
const WORKER_MODULE = new URL('../workers/raw-streams.ts', import.meta.url).href;

export const rawStreamsAdapter: BenchAdapter = {
  id: 'raw-streams',
  label: 'raw Streams',
  needs: ['redis'],
  packages: ['iovalkey'],
  queue: {
    consumerModule: WORKER_MODULE,
    producerModule: WORKER_MODULE,
    async prepare(services, spec) {
      if (!services.redis) throw new Error('raw-streams needs redis');
      const child: RawStreamsConfig = {
        host: services.redis.host,
        port: services.redis.port,
        key: `bench:${spec.runId}`,
        group: 'g',
      };
      const client = new Redis({ host: child.host, port: child.port });
      client.on('error', () => undefined);
      try {
        await client.xgroup('CREATE', child.key, child.group, '0', 'MKSTREAM');
        for (let from = 0; from < spec.jobs; from += PREFILL_BATCH) {
          const pipeline = client.pipeline();
          const to = Math.min(spec.jobs, from + PREFILL_BATCH);
          for (let i = from; i < to; i++)
            pipeline.xadd(child.key, '*', 'p', JSON.stringify({ i, t: 0 }));
          await pipeline.exec();
        }
      } finally {
        client.disconnect();
      }
      return { child: { ...child }, cleanup: async () => undefined };
    },
  },
};
