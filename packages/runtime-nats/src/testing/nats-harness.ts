// The conformance harness for the nats runtime: its own private nats-server, a fresh database,
// each consumer on its own connection (like separate processes). Read failures are injected into
// the transport's pull requests, the way an outage shows.
//
// The dispatch half is the gateway's dispatcher; a small outbox pump stands in for the gateway's
// reconciler (worker retries with a delay are acknowledged and come back through an outbox row).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { createLocalBlobStore, type DialectName } from '@sluice/storage';
import { createTestDatabase } from '@sluice/storage/testing';
import {
  startOutboxPump,
  type ConformanceHarness,
  type TransportFaults,
} from '@sluice/worker/conformance';
import { NATS_CAPABILITIES } from '../capabilities.js';
import { connectNats, natsModules } from '../connection.js';
import { createNatsDispatcher } from '../gateway/create-nats-dispatcher.js';
import { createNatsNames } from '../names.js';
import { createNatsConsumer, type NatsConsumer } from '../worker/create-nats-consumer.js';
import { startNatsServer } from './nats-server.js';

let n = 0;

export async function createNatsHarness(dialect: DialectName): Promise<ConformanceHarness> {
  const [server, test] = await Promise.all([startNatsServer(), createTestDatabase(dialect)]);
  const names = createNatsNames(`conf${++n}`);
  const nc: NatsConnection = await connectNats(server.url, 'harness');
  const { js: jsMod } = natsModules();
  const jsm: JetStreamManager = await jsMod.jetstreamManager(nc);
  const js = jsMod.jetstream(nc);
  const dispatcher = createNatsDispatcher({ names, client: async () => ({ js, jsm }) });
  const dir = mkdtempSync(join(tmpdir(), 'sluice-blobs-'));
  const { database } = test;
  const pump = startOutboxPump(database, (p) => dispatcher.dispatch(p), 25);
  return {
    capabilities: NATS_CAPABILITIES,
    database,
    blobs: createLocalBlobStore(dir),
    consumer: ({ workerId, versions, leaseMs, faults }) =>
      withReadFaults(
        createNatsConsumer({
          url: server.url,
          prefix: names.prefix,
          workerId,
          versions,
          leaseMs,
          blockMs: 100,
          database,
          servedTtlMs: 600,
        }),
        faults,
      ),
    dispatch: (pointers) => dispatcher.dispatch(pointers),
    async pending(kind) {
      // A work queue keeps a message until it is acknowledged: what is left is unfinished.
      const info = await jsm.streams
        .info(names.jobsStream, { subjects_filter: names.kindSubjects(kind) })
        .catch(() => undefined);
      const subjects = (info?.state.subjects ?? {}) as Record<string, number>;
      return Object.values(subjects).reduce((a, b) => a + b, 0);
    },
    async dispose() {
      clearInterval(pump);
      await nc.close();
      await server.stop();
      await test.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Read failures injected around the consumer (the conformance suite's transport faults). */
function withReadFaults(consumer: NatsConsumer, faults: TransportFaults | undefined): NatsConsumer {
  if (!faults) return consumer;
  return {
    ...consumer,
    read: (max, signal) =>
      faults.failReads
        ? Promise.reject(new Error('injected read failure'))
        : consumer.read(max, signal),
  };
}
