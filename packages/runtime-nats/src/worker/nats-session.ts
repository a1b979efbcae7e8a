// The NATS consumer's connection and the server-side things it reads through: the JetStream
// clients, the owners bucket and the puller, opened on first use (again after a failed open).
// A server that lost its store (a restart on an empty volume) has no stream, consumers or
// owners bucket any more: the session is marked lost and the next read sets them up again.

import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { VersionKey } from '@sluice/contracts';
import { connectNats, natsModules, onReconnect } from '../connection.js';
import type { NatsNames } from '../names.js';
import { ensureVersionConsumers } from '../setup.js';
import { createOwners, type Owners } from './owners.js';
import { createPuller, type Puller } from './puller.js';

export interface NatsParts {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  owners: Owners;
  puller: Puller;
}

export interface NatsSessionOptions {
  url?: string | undefined;
  /** A connection of the caller's: never closed here. */
  connection?: NatsConnection | undefined;
  workerId: string;
  names: NatsNames;
  versions: readonly VersionKey[];
  leaseMs: number;
  maxDeliver: number;
  deadLettersMax: number;
  onError: (error: unknown) => void;
}

export interface NatsSession {
  /** The parts, opened on first use; a failed open is tried again by the next call. */
  get(): Promise<NatsParts>;
  /** The parts if an open was ever started (closing must not open a connection). */
  started(): Promise<NatsParts> | undefined;
  /** Consumers and owners bucket created (or found) now. */
  setup(p: NatsParts): Promise<void>;
  /** The server may have lost its store: set up again before the next pull. */
  markLost(): void;
  /** Sets up again if marked lost, at most once per second (a server that is down fails fast). */
  repairIfLost(p: NatsParts): Promise<void>;
}

export function createNatsSession(opts: NatsSessionOptions): NatsSession {
  const { names } = opts;
  let parts: Promise<NatsParts> | undefined;
  let lost = false;
  let lastSetup = 0;

  async function open(): Promise<NatsParts> {
    const { js: jsMod } = natsModules();
    const nc =
      opts.connection ?? (await connectNats(opts.url as string, `sluice-worker-${opts.workerId}`));
    try {
      const jsm = await jsMod.jetstreamManager(nc);
      const js = jsMod.jetstream(nc);
      onReconnect(nc, () => (lost = true));
      return { nc, js, jsm, owners: await openOwners(js), puller: createPuller(nc, opts.onError) };
    } catch (error) {
      if (!opts.connection) await nc.close().catch(() => {});
      throw error;
    }
  }

  async function openOwners(js: JetStreamClient): Promise<Owners> {
    const kv = await new (natsModules().kv.Kvm)(js).create(names.ownersBucket, {
      history: 1,
      // Records of a worker that never comes back expire; a restart comes back far sooner.
      ttl: 24 * 3_600_000,
    });
    return createOwners(kv);
  }

  async function setup(p: NatsParts) {
    await ensureVersionConsumers(p.jsm, names, opts.versions, {
      ackWaitMs: opts.leaseMs,
      maxDeliver: opts.maxDeliver,
      deadLettersMax: opts.deadLettersMax,
    });
    p.owners = await openOwners(p.js);
    lost = false;
    lastSetup = Date.now();
  }

  return {
    get() {
      parts ??= open().catch((error: unknown) => {
        parts = undefined;
        throw error;
      });
      return parts;
    },
    started: () => parts,
    setup,
    markLost: () => void (lost = true),
    async repairIfLost(p) {
      if (!lost || Date.now() - lastSetup <= 1_000) return;
      lastSetup = Date.now();
      await setup(p);
    },
  };
}
