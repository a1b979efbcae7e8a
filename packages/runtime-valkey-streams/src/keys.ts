// Every Valkey key, group and dead-letter name is built here, so the gateway (dispatch) and the
// worker (consume) can never disagree on a name.

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
   * database, so it survives that loss.)
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
      const base = `${prefix}:jobs:${kind}:${version}`;
      return band === 'normal' ? base : `${base}:${band}`;
    },
    group: `${prefix}-workers`,
    deadLetters: (kind, version) => (check(kind, version), `${prefix}:dlq:${kind}:${version}`),
    events: `${prefix}:events`,
    served: (kind) => {
      if (!isJobKind(kind)) throw new SluiceError('BAD_REQUEST', `invalid kind "${kind}"`);
      return `${prefix}:served:${kind}`;
    },
    generation: `${prefix}:generation`,
  };
}
