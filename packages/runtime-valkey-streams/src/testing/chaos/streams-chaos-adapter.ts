// The Streams runtime's part of the worker's chaos soak: a private redis-server without
// persistence (its restart loses the streams, groups and pending lists), XADD on the fixture's
// own client, and the workers on the proxied Redis link with maintenance on as in production.

import type { ChaosAdapter } from '@sluice/worker/chaos';
import { pingRedis, waitFor } from '@sluice/testkit';
import { PAID_CHILD_RUNTIME } from '../paid-runtime-entry.js';
import { createStreamsFixture } from '../streams-fixture.js';

export const streamsChaosAdapter: ChaosAdapter = {
  name: 'valkey-streams',
  broker: 'Redis',
  restartNote: 'redis-server without persistence',
  runtimeModule: PAID_CHILD_RUNTIME,
  // Once: an XADD after the server answers a ping goes through.
  redispatchTries: 1,
  async open() {
    const fx = await createStreamsFixture({ persistence: 'none' });
    const { server } = fx;
    return {
      host: server.host,
      port: server.port,
      dispatch: (pointers) => fx.dispatch(pointers),
      async restartEmpty() {
        await server.restart({ persistence: 'none' });
        await waitFor(() => pingRedis(server.port), { timeoutMs: 20_000, message: 'redis back' });
      },
      workerEnv: (proxyUrl) => ({
        REDIS_URL: proxyUrl('redis'),
        MAINTAIN_EVERY_MS: '1000',
        COMMAND_TIMEOUT_MS: '2000',
      }),
      dispose: () => fx.dispose(),
    };
  },
};
