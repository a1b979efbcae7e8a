// The NATS runtime as the worker's invariant cases see it (`InvariantRig`): a private nats-server
// per suite, in-process consumers and worker processes on it under the fixture's prefix, the
// gateway's dispatch (a JetStream publish after the commit; the worker children run this
// package's consumer through RUNTIME_MODULE) and an outbox pump standing in for its reconciler.
// A work queue keeps a message until it is acknowledged, so what the stream holds of a kind is
// what the transport still owes.
import { startOutboxPump, type InvariantRig } from '@sluice/worker/conformance';
import { createNatsConsumer } from '../worker/create-nats-consumer.js';
import { openNatsFixture } from './nats-fixture.js';
import { PAID_CHILD_RUNTIME } from './paid-runtime-entry.js';

export async function createNatsRig(): Promise<InvariantRig> {
  const fx = await openNatsFixture();
  return {
    dispatchesInTransaction: false,
    // The pointer codec (shared with Streams) refuses a version other than the job id's prefix.
    carriesMisroutedPointers: false,
    dispatch: (_database, pointers) => fx.dispatch(pointers),
    consumer: (database) => (c) =>
      createNatsConsumer({
        ...c,
        database,
        url: fx.server.url,
        prefix: fx.names.prefix,
        blockMs: 200,
      }),
    childEnv: () => ({
      RUNTIME_MODULE: PAID_CHILD_RUNTIME.pathname,
      NATS_URL: fx.server.url,
      NATS_PREFIX: fx.names.prefix,
    }),
    outstanding: (_database, kind) => fx.outstanding(kind),
    reconcile(database) {
      const pump = startOutboxPump(database, (p) => fx.dispatch(p), 50);
      return () => clearInterval(pump);
    },
    dispose: () => fx.dispose(),
  };
}
