// How the reconciler learns that the NATS server lost its data (a restart with an empty store, a
// wiped volume): the generation marker in the meta bucket is gone, or the jobs stream is. JetStream
// is a transport, not the system of record: after a loss every non-terminal job is dispatched
// again from the database. The marker is written BEFORE the re-dispatch, so a loss during it
// removes the marker again and the next check repeats the work.

import { randomToken } from '@sluice/contracts';
import type { DataLossDetector } from '@sluice/gateway';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { natsModules } from '../connection.js';
import type { NatsNames } from '../names.js';
import { ensureJobsStream, isNotFound } from '../setup.js';

const MARKER = 'generation';

export function createNatsDataLossDetector(
  names: NatsNames,
  client: () => Promise<{ js: JetStreamClient; jsm: JetStreamManager }>,
  onMarked: () => void,
): DataLossDetector {
  async function meta() {
    const { js } = await client();
    return new (natsModules().kv.Kvm)(js).create(names.metaBucket, { history: 1 });
  }
  return {
    async lost() {
      const { jsm } = await client();
      try {
        await jsm.streams.info(names.jobsStream);
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
      const entry = await (await meta()).get(MARKER);
      return !entry || entry.operation !== 'PUT';
    },
    async mark() {
      const { jsm } = await client();
      await ensureJobsStream(jsm, names);
      await (await meta()).put(MARKER, randomToken());
      onMarked();
    },
  };
}
