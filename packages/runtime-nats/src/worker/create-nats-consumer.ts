// The NATS JetStream runtime's consume half: a durable pull consumer per (kind, version) on the
// work-queue jobs stream, shared by every worker (each worker is a client of it). At-least-once:
// a pulled message stays pending until the host acknowledges it after the stored outcome;
// AckWait equals the lease, renewals (`+WPI`) keep it from expiring, and a dead worker's
// messages come back by themselves once it passes, or sooner: once its liveness beat lapsed, a
// live worker hands them back (`takeOver`). Attempts are counted in the database.
// The parts: `session` (connection, owners bucket, set-up again after a lost store), `reader`
// (own deliveries → buffer → pulls); acknowledging, renewing and dead-lettering are here.

import {
  SluiceError,
  type RenewOutcome,
  type RuntimeConsumer,
  type VersionKey,
} from '@sluice/contracts';
import { heartbeatServed, removeServed, type SluiceDatabase } from '@sluice/storage';
import { every, type Periodic } from '@sluice/worker/node';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CAPABILITIES } from '../capabilities.js';
import { flushWithin } from '../connection.js';
import { createNatsNames, type NatsNames } from '../names.js';
import { createNatsReader, publishDead } from './nats-reader.js';
import { createNatsSession } from './nats-session.js';
import type { NatsDelivery } from './types.js';

export interface NatsConsumerOptions {
  /** `nats://host:port`; or give `connection` (then the consumer does not close it). */
  url?: string | undefined;
  connection?: NatsConnection | undefined;
  versions: readonly VersionKey[];
  workerId: string;
  /** The lease: the consumer's AckWait (default 30 s). */
  leaseMs?: number | undefined;
  /** How long a read waits for new messages when none is there (default 2 000 ms). */
  blockMs?: number | undefined;
  /** Server hand-outs per message before JetStream stops (default 1 000; the database counts attempts). */
  maxDeliver?: number | undefined;
  /** Subject and stream prefix (default `sluice`); the gateway must use the same. */
  prefix?: string | undefined;
  deadLettersMax?: number | undefined;
  /**
   * The job database: the served versions are heartbeated into its registry (the one the
   * worker's unroutable sweep reads by default), so a version no live worker serves is
   * dead-lettered after the grace instead of waiting forever.
   */
  database?: SluiceDatabase | undefined;
  /** How long a served-versions heartbeat counts (default 30 s; renewed every third of it). */
  servedTtlMs?: number | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

export const DEFAULT_NATS_LEASE_MS = 30_000;

export interface NatsConsumer extends RuntimeConsumer<NatsDelivery> {
  readonly names: NatsNames;
}

export function createNatsConsumer(opts: NatsConsumerOptions): NatsConsumer {
  if (!opts.connection && !opts.url) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'the nats runtime needs a url (NATS_URL) or a connection',
    );
  }
  const names = createNatsNames(opts.prefix);
  const leaseMs = opts.leaseMs ?? DEFAULT_NATS_LEASE_MS;
  const blockMs = opts.blockMs ?? 2_000;
  const onError = opts.onError ?? (() => {});
  const encoder = new TextEncoder();
  let closing: Promise<void> | undefined;
  const session = createNatsSession({
    url: opts.url,
    connection: opts.connection,
    workerId: opts.workerId,
    names,
    versions: opts.versions,
    leaseMs,
    maxDeliver: opts.maxDeliver ?? 1_000,
    deadLettersMax: opts.deadLettersMax ?? 100_000,
    onError,
  });
  const reader = createNatsReader({
    names,
    versions: opts.versions,
    workerId: opts.workerId,
    blockMs,
    session,
    isClosing: () => closing !== undefined,
  });
  const servedTtlMs = opts.servedTtlMs ?? 30_000;
  let heartbeat: Periodic | undefined;
  const beat = () =>
    opts.database
      ? heartbeatServed(opts.database.db, opts.workerId, opts.versions, servedTtlMs)
      : Promise.resolve();

  async function finish(ds: readonly NatsDelivery[], body: string) {
    if (ds.length === 0) return;
    const p = await session.get();
    for (const d of ds) p.nc.publish(d.reply, encoder.encode(body));
    // The acknowledgements reach the server before we report them done.
    await flushWithin(p.nc);
    await Promise.all(ds.map((d) => p.owners.drop(d.seq, d.revision)));
  }

  return {
    name: 'nats',
    capabilities: NATS_CAPABILITIES,
    names,

    async init() {
      const p = await session.get();
      await session.setup(p);
      await beat();
      if (opts.database && !heartbeat && !closing) {
        heartbeat = every(Math.max(50, servedTtlMs / 3), beat, onError);
      }
    },

    read: reader.read,

    async renew(ds): Promise<RenewOutcome[]> {
      if (ds.length === 0) return [];
      const p = await session.get();
      const held = await Promise.all(ds.map((d) => p.owners.check(d.seq, opts.workerId, d.reply)));
      // Progress only where still ours; a message another worker took over is lost to us.
      ds.forEach((d, i) => held[i] !== 'other' && p.nc.publish(d.reply, encoder.encode('+WPI')));
      await flushWithin(p.nc);
      return held.map((h) => (h === 'other' ? 'lost' : 'renewed'));
    },

    ack: (ds) => finish(ds, '+ACK'),

    // Who holds deliveries now, from the owner records: the host asks which of them stopped
    // beating (worker liveness in the job database) and hands their messages on (`takeOver`).
    async holders() {
      const p = await session.get();
      return [...new Set((await p.owners.all()).map((r) => r.w))];
    },

    // A dead holder's messages would wait out AckWait (the lease). A `-NAK` on the holder's own
    // ack subject hands each back to the durable consumer at once; their job rows' leases were
    // ended by the reap, so whoever pulls one next claims it at a new epoch. The record is
    // compare-and-deleted first and only the worker that removed it sends the NAK: the server
    // takes a NAK by stream sequence, so a second one, sent after the message was handed out
    // again, would hand it out once more while its new holder runs it.
    async takeOver(dead) {
      const p = await session.get();
      const gone = new Set(dead.filter((w) => w !== opts.workerId));
      const held = (await p.owners.all()).filter((r) => gone.has(r.w));
      const taken = await Promise.all(held.map((r) => p.owners.take(r.seq, r.revision)));
      held.forEach((r, i) => taken[i] && p.nc.publish(r.r, encoder.encode('-NAK')));
      await flushWithin(p.nc);
    },

    // With a delay the host wrote an outbox row due then: the message is finished here and the
    // reconciler dispatches the job again when due. Without one, NAK: handed out again at once.
    release: (ds, delayMs) => finish(ds, delayMs && delayMs > 0 ? '+ACK' : '-NAK'),

    async deadLetter(d, reason) {
      const p = await session.get();
      const version = d.pointer ? { kind: d.pointer.kind, version: d.pointer.version } : undefined;
      await publishDead(p, names, opts.workerId, version, JSON.stringify(d.pointer ?? {}), reason);
      await finish([d], '+ACK');
    },

    close() {
      closing ??= (async () => {
        heartbeat?.stop();
        // The registry rows are this worker's own (keyed by its id): gone with it.
        if (opts.database) await removeServed(opts.database.db, opts.workerId).catch(onError);
        const p = await session.started()?.catch(() => undefined);
        if (!p) return;
        // Pulled but never handed out: back to the stream at once.
        for (const m of p.puller.close()) p.nc.publish(m.reply, encoder.encode('-NAK'));
        await p.nc.flush().catch(() => {});
        if (!opts.connection) await p.nc.close().catch(() => {});
      })();
      return closing;
    },
  };
}
