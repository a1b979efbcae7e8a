// A private nats-server with the gateway's dispatcher on its own connection, for the process
// tests (killed worker, chaos): `dispatch` publishes pointers as the gateway does after commit.

import type { MessagePointer } from '@sluice/contracts';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats, natsModules, onReconnect } from '../connection.js';
import { createNatsDispatcher, type NatsDispatcher } from '../gateway/create-nats-dispatcher.js';
import { createNatsNames, type NatsNames } from '../names.js';
import { startNatsServer, type NatsServer } from './nats-server.js';

export interface NatsFixture {
  readonly server: NatsServer;
  readonly names: NatsNames;
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  readonly dispatcher: NatsDispatcher;
  dispatch(pointers: readonly MessagePointer[]): Promise<void>;
  /** Messages of a kind still in the work queue (dispatched, not yet acknowledged). */
  outstanding(kind: string): Promise<number>;
  dispose(): Promise<void>;
}

let n = 0;

export async function openNatsFixture(): Promise<NatsFixture> {
  const server = await startNatsServer();
  const names = createNatsNames(`fx${++n}`);
  const nc = await connectNats(server.url, 'fixture');
  const { js: jsMod } = natsModules();
  const jsm = await jsMod.jetstreamManager(nc);
  const js = jsMod.jetstream(nc);
  const dispatcher = createNatsDispatcher({ names, client: async () => ({ js, jsm }) });
  onReconnect(nc, () => dispatcher.forgetStream());
  return {
    server,
    names,
    nc,
    jsm,
    dispatcher,
    dispatch: (pointers) => dispatcher.dispatch(pointers),
    async outstanding(kind) {
      const info = await jsm.streams.info(names.jobsStream, {
        subjects_filter: names.kindSubjects(kind),
      });
      return Object.values((info.state.subjects ?? {}) as Record<string, number>).reduce(
        (a, b) => a + b,
        0,
      );
    },
    async dispose() {
      await nc.close().catch(() => {});
      await server.stop();
    },
  };
}
