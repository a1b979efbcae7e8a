// The gateway's dispatcher conformance suite on Valkey Streams, as production wires it (bounded,
// fair dispatch; a private redis-server per run): a consumer "takes" by reading its group (the
// highest priority band first) and acknowledging what it read.
import { startRedisServer, type RedisServer } from '@sluice/testkit';
import {
  CONFORMANCE_VERSIONS,
  dispatcherConformance,
  takenByConsumer,
} from '@sluice/gateway/conformance';
import { afterAll, beforeAll } from 'vitest';
import { createStreamsRuntime } from '../worker/create-streams-runtime.js';
import { createStreamsGatewayRuntime } from './create-streams-gateway-runtime.js';

let server: RedisServer;
let n = 0;
beforeAll(async () => {
  server = await startRedisServer({ persistence: 'none' });
});
afterAll(async () => {
  await server?.stop();
});

dispatcherConformance('valkey-streams', {
  open(database) {
    // A key prefix per open: the suite runs once per dialect against one server.
    const prefix = `conf${++n}`;
    return takenByConsumer(
      createStreamsGatewayRuntime({ redisUrl: server.url, database, prefix, reconciler: false }),
      createStreamsRuntime({
        redisUrl: server.url,
        keyPrefix: prefix,
        versions: CONFORMANCE_VERSIONS,
        workerId: `conformance-${prefix}`,
        leaseMs: 600_000,
        blockMs: 200,
      }),
    );
  },
});
