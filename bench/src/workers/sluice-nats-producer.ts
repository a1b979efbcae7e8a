// Row 3's producer for Sluice NATS: the shared accept path (accept-producer.ts: group-committed
// accepts and outbox rows, outbox deleted every 100 ms); after each commit the gateway's own NATS
// dispatcher publishes the pointers (every publish awaited for the stream's ack). The harness
// stamps `job.t` before `add`, i.e. before the database write (accept → start); the consumer
// measures dispatch → start from the time the server stored the message.
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { openDatabase } from '@sluice/storage';
import { createNatsDispatcher, createNatsNames } from '@sluice/runtime-nats';
import type { CreateProducer } from '../adapter.js';
import { createAcceptProducer } from '../sluice/accept-producer.js';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION } from '../sluice/bench-job.js';
import { parseNatsChildConfig } from '../sluice/nats-config.js';

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseNatsChildConfig(init.config);
  const names = createNatsNames(cfg.prefix);
  const database = openDatabase({ url: cfg.pgUrl, poolSize: 8, notifyEvents: false });
  const nc = await connect({ servers: cfg.natsUrl.replace(/^nats:\/\//, ''), name: 'producer' });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const dispatcher = createNatsDispatcher({ names, client: async () => ({ js, jsm }) });
  await database.db.selectFrom('jobs').select('id').limit(1).execute();
  return createAcceptProducer({
    database,
    name: 'sluice-nats producer',
    dispatch: (ids) =>
      dispatcher.dispatch(
        ids.map((jobId) => ({
          jobId,
          kind: BENCH_KIND,
          version: BENCH_VERSION,
          tenantId: BENCH_TENANT,
        })),
      ),
    closeTransport: () => nc.close(),
  });
};
