// Row 3's producer for Sluice Streams: the shared accept path (accept-producer.ts: group-committed
// accepts and outbox rows, outbox deleted every 100 ms; row 6 measures the HTTP part); after each
// commit one pipeline XADDs the pointers (createStreamKeys / encodePointer), each entry's id
// carrying its dispatch stamp (`stampedEntryId`, taken as the pipeline is built). The harness
// stamps `job.t` before `add`, i.e. before the database write (accept → start).
import { Redis } from 'iovalkey';
import { encodePointer } from '@sluice/contracts';
import { acceptedSnapshot, openDatabase } from '@sluice/storage';
import { createStreamKeys } from '@sluice/runtime-valkey-streams';
import type { CreateProducer } from '../adapter.js';
import { monoMs } from '../harness/clock.js';
import { createAcceptProducer } from '../sluice/accept-producer.js';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION } from '../sluice/bench-job.js';
import { parseStreamsChildConfig, stampedEntryId } from '../sluice/streams-config.js';

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseStreamsChildConfig(init.config);
  const keys = createStreamKeys();
  const stream = keys.jobs(BENCH_KIND, BENCH_VERSION);
  // The gateway of a Streams deployment opens its database like this too (the CLI's
  // resources.ts): NOTIFY off, the events stream is the fan-out.
  const database = openDatabase({ url: cfg.pgUrl, poolSize: 8, notifyEvents: false });
  const redis = new Redis(cfg.redisUrl);
  redis.on('error', (error) => console.error(`sluice-streams producer: ${error.message}`));
  // As the gateway's dispatcher: the group exists (at 0) before the first entry arrives.
  await redis.xgroup('CREATE', stream, keys.group, '0', 'MKSTREAM').catch((error: Error) => {
    if (!/BUSYGROUP/.test(error.message)) throw error;
  });
  await database.db.selectFrom('jobs').select('id').limit(1).execute();
  let last = { ms: 0, seq: 0 };
  return createAcceptProducer({
    database,
    name: 'sluice-streams producer',
    async dispatch(_ids, { jobs, at }) {
      const pipeline = redis.pipeline();
      for (const job of jobs) {
        // As the gateway's submit path: the pointer carries the row it just wrote.
        const snapshot = acceptedSnapshot(job, at);
        const fields = encodePointer({
          jobId: job.id,
          kind: BENCH_KIND,
          version: BENCH_VERSION,
          tenantId: BENCH_TENANT,
          ...(snapshot ? { snapshot } : {}),
        });
        const entry = stampedEntryId(last, monoMs());
        last = entry;
        pipeline.xadd(stream, entry.id, ...fields);
      }
      const failed = (await pipeline.exec())?.find(([error]) => error);
      if (failed) throw failed[0] as Error;
    },
    closeTransport: async () => {
      await redis.quit();
    },
  });
};
