// The NATS runtime's part of the worker's chaos soak: a private nats-server whose restart empties
// its store (the stream, its consumers and the owners bucket gone), the gateway's dispatcher on
// the fixture's own connection, and the workers on the proxied NATS link under the fixture's
// prefix.

import type { ChaosAdapter } from '@sluice/worker/chaos';
import { openNatsFixture } from '../nats-fixture.js';
import { PAID_CHILD_RUNTIME } from '../paid-runtime-entry.js';

export const natsChaosAdapter: ChaosAdapter = {
  name: 'nats',
  broker: 'NATS',
  restartNote: 'nats-server on an emptied store',
  runtimeModule: PAID_CHILD_RUNTIME,
  // A publish racing the client's reconnect can time out although the server is back.
  redispatchTries: 20,
  async open() {
    const fx = await openNatsFixture();
    return {
      host: new URL(fx.server.url).hostname,
      port: fx.server.port,
      dispatch: (pointers) => fx.dispatch(pointers),
      // Answers once it is back (the restart waits for its greeting).
      restartEmpty: () => fx.server.restart({ wipe: true }),
      workerEnv: (proxyUrl) => ({ NATS_URL: proxyUrl('nats'), NATS_PREFIX: fx.names.prefix }),
      dispose: () => fx.dispose(),
    };
  },
};
