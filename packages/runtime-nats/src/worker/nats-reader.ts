// The NATS consumer's read: this worker's own deliveries from before a restart first, then what
// the puller buffered, then "whatever is there now" per version, and only when all that is empty
// one waiting pull per version. Every delivery is recorded in the owners bucket before it is
// handed out; a message that is not a pointer goes to the dead-letter stream instead.

import { decodePointer, type VersionKey } from '@sluice/contracts';
import { natsModules } from '../connection.js';
import type { NatsNames } from '../names.js';
import { isNotFound } from '../setup.js';
import type { NatsDelivery } from './types.js';
import type { NatsParts, NatsSession } from './nats-session.js';
import type { HeldRecord } from './owners.js';
import type { PulledMsg } from './puller.js';

/** A pull status meaning the consumer (or its stream) is gone: a server that lost its store. */
const GONE = new Set([503, 409]);

const encoder = new TextEncoder();

/** Publishes `data` to the dead-letter stream of `version` with the reason and the worker. */
export async function publishDead(
  p: NatsParts,
  names: NatsNames,
  workerId: string,
  version: VersionKey | undefined,
  data: Uint8Array | string,
  reason: string,
): Promise<void> {
  const h = natsModules().transport.headers();
  h.set('Sluice-Reason', reason.slice(0, 1_000));
  h.set('Sluice-Worker', workerId);
  const subject = names.deadSubject(version?.kind ?? 'unknown.kind', version?.version ?? 'v0');
  await p.js.publish(subject, data, { headers: h });
}

export interface NatsReaderOptions {
  names: NatsNames;
  versions: readonly VersionKey[];
  workerId: string;
  blockMs: number;
  session: NatsSession;
  isClosing(): boolean;
}

export function createNatsReader(opts: NatsReaderOptions) {
  const { names, session } = opts;
  const durables = opts.versions.map((v) => names.durable(v.kind, v.version));
  let own: HeldRecord[] | undefined;

  async function deliver(
    p: NatsParts,
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
      const version = opts.versions[durables.indexOf(msg.durable)];
      await publishDead(
        p,
        names,
        opts.workerId,
        version,
        msg.data,
        `BAD_POINTER: ${String(error)}`,
      );
      p.nc.publish(msg.reply, encoder.encode('+ACK'));
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

  /** This worker's deliveries from before a restart, taken back while their AckWait still runs. */
  async function readOwn(p: NatsParts, max: number): Promise<NatsDelivery[]> {
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

  async function fromBuffer(p: NatsParts, max: number): Promise<NatsDelivery[]> {
    const msgs = p.puller.take(max);
    // A message that waited in the buffer has used part of its AckWait: restart it.
    const now = Date.now();
    for (const m of msgs) if (now - m.at > 100) p.nc.publish(m.reply, encoder.encode('+WPI'));
    const out = await Promise.all(msgs.map((m) => deliver(p, m, m.deliveries)));
    return out.filter((d): d is NatsDelivery => d !== undefined);
  }

  async function readFrom(
    p: NatsParts,
    max: number,
    signal?: AbortSignal,
  ): Promise<NatsDelivery[]> {
    await session.repairIfLost(p);
    const gone = (status: number) => {
      if (GONE.has(status)) session.markLost();
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
    if (out.length > 0 || signal?.aborted || opts.isClosing()) return out;
    // Nothing: one waiting request per version (one message each), the first arrival answers.
    const waits = durables.map((d) =>
      p.puller.pull(names.jobsStream, d, 1, { expiresMs: opts.blockMs }, signal).then(gone),
    );
    await Promise.race([Promise.all(waits), p.puller.arrival(opts.blockMs + 100, signal)]);
    return fromBuffer(p, max);
  }

  return {
    async read(max: number, signal?: AbortSignal): Promise<NatsDelivery[]> {
      if (opts.isClosing() || max <= 0) return [];
      const p = await session.get();
      try {
        return await readFrom(p, max, signal);
      } catch (error) {
        session.markLost();
        throw error;
      }
    },
  };
}
