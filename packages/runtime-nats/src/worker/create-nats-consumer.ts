// The NATS JetStream runtime's consume half: a durable pull consumer per (kind, version) on the
// work-queue jobs stream, shared by every worker (each worker is a client of it). At-least-once:
// a pulled message stays pending until the host acknowledges it after the stored outcome;
// AckWait equals the lease, renewals (`+WPI`) keep it from expiring, and a dead worker's
// messages come back by themselves once it passes. Attempts are counted in the database.

import {
  decodePointer,
  SluiceError,
  type Delivery,
  type RenewOutcome,
  type RuntimeConsumer,
  type VersionKey,
} from '@sluice/contracts';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { heartbeatServed, removeServed, type SluiceDatabase } from '@sluice/storage';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CAPABILITIES } from '../capabilities.js';
import { connectNats, flushWithin, natsModules, onReconnect } from '../connection.js';
import { createNatsNames, type NatsNames } from '../names.js';
import { ensureVersionConsumers, isNotFound } from '../setup.js';
import { createOwners, type HeldRecord, type Owners } from './owners.js';
import { createPuller, type PulledMsg, type Puller } from './puller.js';

export interface NatsDelivery extends Delivery {
  readonly seq: number;
  readonly reply: string;
  /** The revision of our owner record (compare-and-delete on finish). */
  readonly revision: number;
}

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
  /** Test seam: read failures injected into the transport's pull requests. */
  faults?: { failReads: boolean } | undefined;
}

export const DEFAULT_NATS_LEASE_MS = 30_000;

export interface NatsConsumer extends RuntimeConsumer<NatsDelivery> {
  readonly names: NatsNames;
}

interface Parts {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  owners: Owners;
  puller: Puller;
}

/** A pull status meaning the consumer (or its stream) is gone: a server that lost its store. */
const GONE = new Set([503, 409]);

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
  const durables = opts.versions.map((v) => names.durable(v.kind, v.version));
  const encoder = new TextEncoder();
  let parts: Promise<Parts> | undefined;
  let own: HeldRecord[] | undefined;
  let closing: Promise<void> | undefined;
  const servedTtlMs = opts.servedTtlMs ?? 30_000;
  let heartbeat: NodeJS.Timeout | undefined;
  const beat = () =>
    opts.database
      ? heartbeatServed(opts.database.db, opts.workerId, opts.versions, servedTtlMs)
      : Promise.resolve();

  async function open(): Promise<Parts> {
    const { js: jsMod } = natsModules();
    const nc =
      opts.connection ?? (await connectNats(opts.url as string, `sluice-worker-${opts.workerId}`));
    try {
      const jsm = await jsMod.jetstreamManager(nc);
      const js = jsMod.jetstream(nc);
      onReconnect(nc, () => (needsSetup = true));
      return { nc, js, jsm, owners: await openOwners(js), puller: createPuller(nc, onError) };
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

  function get(): Promise<Parts> {
    parts ??= open().catch((error: unknown) => {
      parts = undefined;
      throw error;
    });
    return parts;
  }

  // After a server lost its store (a restart on an empty volume) the stream, the consumers and
  // the owners bucket are gone: the next read sets them up again before it pulls.
  let needsSetup = false;
  let lastSetup = 0;

  async function setup(p: Parts) {
    await ensureConsumers(p);
    p.owners = await openOwners(p.js);
    needsSetup = false;
    lastSetup = Date.now();
  }

  const ensureConsumers = (p: Parts) =>
    ensureVersionConsumers(p.jsm, names, opts.versions, {
      ackWaitMs: leaseMs,
      maxDeliver: opts.maxDeliver ?? 1_000,
      deadLettersMax: opts.deadLettersMax ?? 100_000,
    });

  async function deliver(
    p: Parts,
    msg: PulledMsg,
    handedOut: number,
  ): Promise<NatsDelivery | undefined> {
    let pointer;
    try {
      pointer = decodePointer(
        JSON.parse(new TextDecoder().decode(msg.data)) as Record<string, unknown>,
      );
    } catch (error) {
      // Not a pointer: never handed out, kept in the dead-letter stream with the reason.
      await deadLetterRaw(p, msg.durable, msg.data, `BAD_POINTER: ${String(error)}`, msg.reply);
      return undefined;
    }
    const revision = await p.owners.hold(msg.seq, { w: opts.workerId, r: msg.reply, n: handedOut });
    return {
      id: String(msg.seq),
      pointer,
      transportDeliveries: handedOut,
      seq: msg.seq,
      reply: msg.reply,
      revision,
    };
  }

  async function deadLetterRaw(
    p: Parts,
    durable: string,
    data: Uint8Array,
    reason: string,
    reply: string,
  ) {
    const version = opts.versions[durables.indexOf(durable)];
    const { transport } = natsModules();
    const h = transport.headers();
    h.set('Sluice-Reason', reason.slice(0, 1_000));
    h.set('Sluice-Worker', opts.workerId);
    await p.js.publish(
      names.deadSubject(version?.kind ?? 'unknown.kind', version?.version ?? 'v0'),
      data,
      {
        headers: h,
      },
    );
    p.nc.publish(reply, encoder.encode('+ACK'));
  }

  /** This worker's deliveries from before a restart, taken back while their AckWait still runs. */
  async function readOwn(p: Parts, max: number): Promise<NatsDelivery[]> {
    own ??= await p.owners.heldBy(opts.workerId);
    const out: NatsDelivery[] = [];
    while (own.length > 0 && out.length < max) {
      const record = own.shift() as HeldRecord;
      const stored = await p.jsm.streams
        .getMessage(names.jobsStream, { seq: record.seq })
        .catch((e: unknown) => {
          if (isNotFound(e)) return null;
          throw e;
        });
      if (!stored) continue; // finished meanwhile (a work queue deletes acknowledged messages)
      // Progress on the old ack subject restarts its AckWait: the delivery is ours again.
      p.nc.publish(record.r, encoder.encode('+WPI'));
      const d = await deliver(
        p,
        {
          durable: '',
          reply: record.r,
          data: stored.data,
          seq: record.seq,
          deliveries: record.n + 1,
          at: Date.now(),
        },
        record.n + 1,
      );
      if (d) out.push(d);
    }
    return out;
  }

  async function fromBuffer(p: Parts, max: number): Promise<NatsDelivery[]> {
    const msgs = p.puller.take(max);
    // A message that waited in the buffer has used part of its AckWait: restart it.
    const now = Date.now();
    for (const m of msgs) if (now - m.at > 100) p.nc.publish(m.reply, encoder.encode('+WPI'));
    const out = await Promise.all(msgs.map((m) => deliver(p, m, m.deliveries)));
    return out.filter((d): d is NatsDelivery => d !== undefined);
  }

  async function read(max: number, signal?: AbortSignal): Promise<NatsDelivery[]> {
    if (closing || max <= 0) return [];
    if (opts.faults?.failReads) throw new Error('injected read failure');
    const p = await get();
    try {
      return await readFrom(p, max, signal);
    } catch (error) {
      needsSetup = true;
      throw error;
    }
  }

  async function readFrom(p: Parts, max: number, signal?: AbortSignal): Promise<NatsDelivery[]> {
    // At most one setup per second: a server that is down fails each read quickly instead.
    if (needsSetup && Date.now() - lastSetup > 1_000) {
      lastSetup = Date.now();
      await setup(p);
    }
    const gone = (status: number) => {
      if (GONE.has(status)) needsSetup = true;
    };
    const out = await readOwn(p, max);
    if (out.length < max) out.push(...(await fromBuffer(p, max - out.length)));
    // Whatever is there now, version by version.
    for (const durable of durables) {
      if (out.length >= max || signal?.aborted) break;
      gone(
        await p.puller.pull(names.jobsStream, durable, max - out.length, { noWait: true }, signal),
      );
      out.push(...(await fromBuffer(p, max - out.length)));
    }
    if (out.length > 0 || signal?.aborted || closing) return out;
    // Nothing: one waiting request per version (one message each), the first arrival answers.
    const waits = durables.map((d) =>
      p.puller.pull(names.jobsStream, d, 1, { expiresMs: blockMs }, signal).then(gone),
    );
    await Promise.race([Promise.all(waits), p.puller.arrival(blockMs + 100, signal)]);
    return fromBuffer(p, max);
  }

  async function finish(ds: readonly NatsDelivery[], body: string) {
    if (ds.length === 0) return;
    const p = await get();
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
      const p = await get();
      await setup(p);
      await beat();
      if (opts.database && !heartbeat && !closing) {
        heartbeat = setInterval(() => void beat().catch(onError), Math.max(50, servedTtlMs / 3));
        heartbeat.unref();
      }
    },

    read,

    async renew(ds): Promise<RenewOutcome[]> {
      if (ds.length === 0) return [];
      const p = await get();
      const held = await Promise.all(ds.map((d) => p.owners.check(d.seq, opts.workerId, d.reply)));
      // Progress only where still ours; a message another worker took over is lost to us.
      ds.forEach((d, i) => held[i] !== 'other' && p.nc.publish(d.reply, encoder.encode('+WPI')));
      await flushWithin(p.nc);
      return held.map((h) => (h === 'other' ? 'lost' : 'renewed'));
    },

    ack: (ds) => finish(ds, '+ACK'),

    // With a delay the host wrote an outbox row due then: the message is finished here and the
    // reconciler dispatches the job again when due. Without one, NAK: handed out again at once.
    release: (ds, delayMs) => finish(ds, delayMs && delayMs > 0 ? '+ACK' : '-NAK'),

    async deadLetter(d, reason) {
      const p = await get();
      const version = d.pointer
        ? { kind: d.pointer.kind, version: d.pointer.version }
        : { kind: 'unknown.kind', version: 'v0' };
      const { transport } = natsModules();
      const h = transport.headers();
      h.set('Sluice-Reason', reason.slice(0, 1_000));
      h.set('Sluice-Worker', opts.workerId);
      await p.js.publish(
        names.deadSubject(version.kind, version.version),
        JSON.stringify(d.pointer ?? {}),
        { headers: h },
      );
      await finish([d], '+ACK');
    },

    close() {
      closing ??= (async () => {
        clearInterval(heartbeat);
        // The registry rows are this worker's own (keyed by its id): gone with it.
        if (opts.database) await removeServed(opts.database.db, opts.workerId).catch(onError);
        if (!parts) return;
        const p = await parts.catch(() => undefined);
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
