// The conformance harness for the valkey-streams runtime: its own private redis-server, a fresh
// database, each consumer on its own connections (like separate processes). Read failures are
// injected into the transport (XREADGROUP and XAUTOCLAIM reject), the way an outage shows.
//
// The dispatch half is the gateway's: here `dispatch` XADDs pointers after the commit, and a
// small outbox pump (the worker's, shared with the NATS runtime) stands in for the gateway's
// reconciler (worker retries with a delay are acknowledged and come back through an outbox row).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore } from '@sluice/storage';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import type { DialectName } from '@sluice/storage';
import { createStreamsRuntime } from '../worker/create-streams-runtime.js';
import { READ_FIRST_BAND } from '../worker/bands.js';
import { STREAMS_CAPABILITIES } from '../worker/context.js';
import type { StreamsConnections } from '../worker/types.js';
import {
  startOutboxPump,
  type ConformanceHarness,
  type TransportFaults,
} from '@sluice/worker/conformance';
import { createStreamsFixture, type StreamsFixture } from './streams-fixture.js';
import { renewScriptFromEnv } from './renew-script.js';
import { withSnapshots } from './with-snapshots.js';

function withFaults(
  c: StreamsConnections,
  faults: TransportFaults | undefined,
): StreamsConnections {
  if (!faults) return c;
  const fail = () => Promise.reject(new Error('injected read failure'));
  return {
    ...c,
    commands: {
      ...c.commands,
      xreadgroup: (q) => (faults.failReads ? fail() : c.commands.xreadgroup(q)),
      xautoclaim: (...a) => (faults.failReads ? fail() : c.commands.xautoclaim(...a)),
      // New entries are read by a script that tries the priority bands in order.
      runScripts: (calls) =>
        faults.failReads && calls.some((call) => call.script === READ_FIRST_BAND)
          ? fail()
          : c.commands.runScripts(calls),
    },
    blocking: {
      ...c.blocking,
      xreadgroup: (q) => (faults.failReads ? fail() : c.blocking.xreadgroup(q)),
    },
  };
}

export interface StreamsHarness extends ConformanceHarness {
  readonly fixture: HarnessFixture;
  readonly test: TestDatabase;
}

/** What the harness needs of a fixture: one server (streams-fixture) or a cluster. */
export type HarnessFixture = Pick<
  StreamsFixture,
  'keys' | 'redis' | 'dispatch' | 'outstanding' | 'dispose'
> & {
  connections(): StreamsConnections;
  /** The job streams matching a KEYS pattern. */
  streams(pattern: string): Promise<string[]>;
};

function singleServer(fx: StreamsFixture): HarnessFixture {
  return {
    keys: fx.keys,
    redis: fx.redis,
    dispatch: (p) => fx.dispatch(p),
    outstanding: (s) => fx.outstanding(s),
    dispose: () => fx.dispose(),
    connections: () => fx.connections(),
    streams: (pattern) => fx.redis.keys(pattern),
  };
}

export async function createStreamsHarness(
  dialect: DialectName,
  openFixture: () => Promise<HarnessFixture> = async () =>
    singleServer(await createStreamsFixture()),
): Promise<StreamsHarness> {
  const [fixture, test] = await Promise.all([openFixture(), createTestDatabase(dialect)]);
  const dir = mkdtempSync(join(tmpdir(), 'sluice-blobs-'));
  const { database } = test;
  const pump = startOutboxPump(database, fixture.dispatch, 25);
  return {
    fixture,
    test,
    capabilities: STREAMS_CAPABILITIES,
    database,
    blobs: createLocalBlobStore(dir),
    consumer: ({ workerId, versions, leaseMs, faults }) =>
      createStreamsRuntime({
        renewScript: renewScriptFromEnv(),
        connections: withFaults(fixture.connections(), faults),
        workerId,
        versions,
        leaseMs,
        blockMs: 100,
        claimEveryMs: 100,
        heartbeatEveryMs: 100,
        servedTtlMs: 600,
        maintainEveryMs: 250,
      }),
    dispatch: async (pointers) => {
      await fixture.dispatch(await withSnapshots(database, pointers));
    },
    pending: async (kind) => {
      const streams = await fixture.streams(`${fixture.keys.prefix}:jobs:{${kind}:*`);
      return fixture.outstanding(streams);
    },
    dispose: async () => {
      clearInterval(pump);
      await fixture.dispose();
      await test.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
