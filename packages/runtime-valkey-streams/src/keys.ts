// Every Valkey key, group and dead-letter name is built here, so the gateway (dispatch) and the
// worker (consume) can never disagree on a name.
//
// Cluster-ready: every key of one (kind, version), its band streams and its dead-letter stream,
// carries the hash tag `{kind:version}`, so they share one hash slot and a script or read over
// them (read-first-band, dead-letter-owned) stays within one slot on Redis/Valkey Cluster. Keys
// of different versions land on different slots (spread over the masters); the global keys (the
// events stream, the served registry per kind, the generation marker) are each used one key per
// command, so their slot does not matter.

import { isJobKind, isVersion, SluiceError } from '@sluice/contracts';

/**
 * Priority bands of the Valkey Streams runtime, in the order a worker reads them (highest first).
 * Streams order by band, not by exact priority: within a band, arrival order. `normal` keeps the
 * key a stream had before bands existed, so entries written by an older gateway are still read.
 */
export const PRIORITY_BANDS = ['high', 'normal', 'low'] as const;
export type PriorityBand = (typeof PRIORITY_BANDS)[number];

/** 1…10 → high, 0 → normal, −10…−1 → low (a missing priority is 0). */
export function priorityBand(priority: number | undefined): PriorityBand {
  if (priority === undefined || priority === 0) return 'normal';
  return priority > 0 ? 'high' : 'low';
}

export interface StreamKeys {
  readonly prefix: string;
  /** One stream per job kind, version and priority band (default `normal`). */
  jobs(kind: string, version: string, band?: PriorityBand): string;
  /** The consumer group every worker of a stream joins. */
  readonly group: string;
  deadLetters(kind: string, version: string): string;
  /** Status events for every gateway replica to tail. */
  readonly events: string;
  /** Sorted set of `version` members scored by the expiry of the newest worker heartbeat. */
  served(kind: string): string;
  /**
   * A marker the reconciler keeps in the server: when it is gone, the server lost its data (a
   * restart without persistence, a failover to a lagging replica, a flush) and every
   * non-terminal job is re-dispatched from the database. (The reconciler's own lock is in the
   * database, so it survives that loss.) The name carries the key layout: a server holding only
   * the untagged layout of earlier releases reads as lost, so the first reconciler of this layout
   * dispatches every non-terminal job again into the tagged streams (entries under the old names
   * are never read again; the database settles a job that already ran).
   */
  readonly generation: string;
}

export function createStreamKeys(prefix = 'sluice'): StreamKeys {
  if (!/^[a-z][a-z0-9_-]{0,31}$/.test(prefix)) {
    throw new SluiceError('INVALID_CONFIG', `invalid stream key prefix "${prefix}"`);
  }
  const check = (kind: string, version: string) => {
    if (!isJobKind(kind) || !isVersion(version)) {
      throw new SluiceError('BAD_REQUEST', `invalid kind/version "${kind}" "${version}"`);
    }
  };
  return {
    prefix,
    jobs: (kind, version, band = 'normal') => {
      check(kind, version);
      if (!PRIORITY_BANDS.includes(band)) {
        throw new SluiceError('BAD_REQUEST', `invalid priority band "${String(band)}"`);
      }
      const base = `${prefix}:jobs:{${kind}:${version}}`;
      return band === 'normal' ? base : `${base}:${band}`;
    },
    group: `${prefix}-workers`,
    deadLetters: (kind, version) => (check(kind, version), `${prefix}:dlq:{${kind}:${version}}`),
    events: `${prefix}:events`,
    served: (kind) => {
      if (!isJobKind(kind)) throw new SluiceError('BAD_REQUEST', `invalid kind "${kind}"`);
      return `${prefix}:served:${kind}`;
    },
    generation: `${prefix}:generation:tagged`,
  };
}

// Batches are split per slot without computing CRC16: equal slot keys are the same slot, and
// different ones are sent apart (at worst one round trip more for two tags on one slot).

/**
 * What decides `key`'s hash slot: the text of its first non-empty `{…}` tag, else the whole key
 * (the Redis Cluster rule). Keys with equal slot keys are in one slot.
 */
export function slotKey(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/** Indexes of `items` grouped by the slot key of `keyOf(item)`, in first-seen order. */
export function groupBySlot<T>(items: readonly T[], keyOf: (item: T) => string): number[][] {
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const k = slotKey(keyOf(item));
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  });
  return [...groups.values()];
}
