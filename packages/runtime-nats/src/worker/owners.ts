// Who holds a delivery, in a KV bucket keyed by stream sequence. JetStream tracks pending
// messages per durable consumer, not per client, so two things need a record of our own:
// - own pending first: a worker restarted under the same id finds the deliveries it held (their
//   ack subjects still work) and takes them back before AckWait hands them to someone else;
// - the owner check: a renewal answers `lost` once another worker took the message over.
// Every write remembers its revision, so a late delete never removes a newer holder's record.

import type { KV } from '@nats-io/kv';

export interface OwnerRecord {
  /** Worker id. */
  readonly w: string;
  /** The ack subject of the delivery this worker holds. */
  readonly r: string;
  /** Hand-outs so far (the server's count plus our own re-reads after restarts). */
  readonly n: number;
}

export interface HeldRecord extends OwnerRecord {
  readonly seq: number;
  /** The record's revision (for a compare-and-delete). */
  readonly revision: number;
}

const key = (seq: number) => String(seq);

function parse(value: Uint8Array | undefined): OwnerRecord | undefined {
  if (!value || value.length === 0) return undefined;
  try {
    const v = JSON.parse(new TextDecoder().decode(value)) as Partial<OwnerRecord>;
    return typeof v.w === 'string' && typeof v.r === 'string' && typeof v.n === 'number'
      ? (v as OwnerRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

export interface Owners {
  /** Records this worker as the holder; returns the revision to check against later. */
  hold(seq: number, record: OwnerRecord): Promise<number>;
  /** `mine` (same worker and delivery), `other` (someone took it over), or `none`. */
  check(seq: number, workerId: string, reply: string): Promise<'mine' | 'other' | 'none'>;
  /** Removes the record if it is still the one written at `revision`. */
  drop(seq: number, revision: number): Promise<void>;
  /** Every delivery recorded for this worker (after a restart). */
  heldBy(workerId: string): Promise<HeldRecord[]>;
  /** Every delivery recorded, whoever holds it. */
  all(): Promise<HeldRecord[]>;
  /** Removes the record if it is still the one written at `revision`; false if it was not. */
  take(seq: number, revision: number): Promise<boolean>;
}

export function createOwners(kv: KV): Owners {
  async function all(): Promise<HeldRecord[]> {
    const held: HeldRecord[] = [];
    const keys: string[] = [];
    for await (const k of await kv.keys()) keys.push(k);
    const entries = await Promise.all(keys.map((k) => kv.get(k)));
    for (const [i, entry] of entries.entries()) {
      const record = entry && entry.operation === 'PUT' ? parse(entry.value) : undefined;
      if (record && entry) held.push({ ...record, seq: Number(keys[i]), revision: entry.revision });
    }
    return held.sort((a, b) => a.seq - b.seq);
  }

  return {
    hold: (seq, record) => kv.put(key(seq), JSON.stringify(record)),

    async check(seq, workerId, reply) {
      const entry = await kv.get(key(seq));
      const record = entry && entry.operation === 'PUT' ? parse(entry.value) : undefined;
      if (!record) return 'none';
      return record.w === workerId && record.r === reply ? 'mine' : 'other';
    },

    async drop(seq, revision) {
      // Compare-and-delete: a newer holder's record (another revision) stays.
      await kv.delete(key(seq), { previousSeq: revision }).catch(() => {});
    },

    heldBy: async (workerId) => (await all()).filter((r) => r.w === workerId),

    all,

    async take(seq, revision) {
      try {
        await kv.delete(key(seq), { previousSeq: revision });
        return true;
      } catch {
        return false;
      }
    },
  };
}
