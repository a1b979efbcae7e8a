// The gateway's dispatcher conformance suite on NATS, as production wires it (a private
// nats-server per run): a consumer "takes" by pulling from the durable consumers and
// acknowledging what it pulled. Without `prioritizes` the priority case skips by that flag.
import {
  CONFORMANCE_VERSIONS,
  dispatcherConformance,
  takenByConsumer,
} from '@sluice/gateway/conformance';
import { afterAll, beforeAll } from 'vitest';
import { startNatsServer, type NatsServer } from '../testing/nats-server.js';
import { createNatsConsumer } from '../worker/create-nats-consumer.js';
import { createNatsGatewayRuntime } from './create-nats-gateway-runtime.js';

let server: NatsServer;
let n = 0;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

dispatcherConformance('nats', {
  open(database) {
    // A prefix per open: the suite runs once per dialect against one server.
    const prefix = `disp${++n}`;
    return takenByConsumer(
      createNatsGatewayRuntime({ url: server.url, database, prefix, reconciler: false }),
      createNatsConsumer({
        url: server.url,
        prefix,
        versions: CONFORMANCE_VERSIONS,
        workerId: `conformance-${prefix}`,
        leaseMs: 600_000,
        blockMs: 200,
      }),
    );
  },
});
