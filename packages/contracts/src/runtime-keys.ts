// Every Valkey key, group and dead-letter name is built here, so the gateway (dispatch) and the
// worker (consume) can never disagree on a name.

import { SluiceError } from './errors.js';
import { isVersion } from './job-id.js';
import { isJobKind } from './names.js';

export interface StreamKeys {
  readonly prefix: string;
  /** One stream per job kind and version. */
  jobs(kind: string, version: string): string;
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
    jobs: (kind, version) => (check(kind, version), `${prefix}:jobs:${kind}:${version}`),
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
