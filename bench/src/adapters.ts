// Every system the suite knows, by id. An adapter that cannot run yet sets `unavailable`.
import type { BenchAdapter } from './adapter.js';
import { bullmqAdapter, bullmqAofAdapter } from './anchors/bullmq.js';
import { graphileAdapter } from './anchors/graphile.js';
import { rawStreamsAdapter } from './anchors/raw-streams.js';
import { absurdAdapter } from './durable/absurd.js';
import { dbosAdapter } from './durable/dbos.js';
import { pgBossAdapter } from './durable/pgboss.js';
import { restateAdapter } from './durable/restate.js';
import { sluiceEmbeddedPg, sluiceEmbeddedSqlite } from './sluice/embedded.js';
import { sluiceGatewayPostgres, sluiceGatewaySqlite, trpcNoopAdapter } from './sluice/gateway.js';
import { sluiceNats } from './sluice/nats.js';
import { sluiceStreams } from './sluice/streams.js';

export const ADAPTERS: readonly BenchAdapter[] = [
  sluiceStreams,
  sluiceNats,
  sluiceEmbeddedSqlite,
  sluiceEmbeddedPg,
  sluiceGatewaySqlite,
  sluiceGatewayPostgres,
  trpcNoopAdapter,
  bullmqAdapter,
  bullmqAofAdapter,
  rawStreamsAdapter,
  graphileAdapter,
  pgBossAdapter,
  dbosAdapter,
  restateAdapter,
  absurdAdapter,
];

export function adapterMap(
  adapters: readonly BenchAdapter[] = ADAPTERS,
): Map<string, BenchAdapter> {
  const map = new Map<string, BenchAdapter>();
  for (const adapter of adapters) {
    if (map.has(adapter.id)) throw new Error(`duplicate bench adapter id ${adapter.id}`);
    map.set(adapter.id, adapter);
  }
  return map;
}
