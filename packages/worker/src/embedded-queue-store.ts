// `EmbeddedQueueStore` over `@sluice/storage`: the lease queue and the served-versions registry
// in the job database, with this worker's owner name, versions and lease length bound in.

import type { VersionKey } from '@sluice/contracts';
import {
  ack,
  claim,
  heartbeatServed,
  release,
  removeServed,
  renew,
  type SluiceDatabase,
} from '@sluice/storage';
import type { EmbeddedQueueStore } from './runtimes/types.js';

export interface EmbeddedQueueStoreOptions {
  database: SluiceDatabase;
  /** Lease owner and served-versions worker id: stable per worker. */
  workerId: string;
  versions: readonly VersionKey[];
  leaseMs: number;
  /** How long a served-versions heartbeat counts (default 3 × leaseMs). */
  servedTtlMs?: number;
}

export function createEmbeddedQueueStore(opts: EmbeddedQueueStoreOptions): EmbeddedQueueStore {
  const { database, workerId, versions, leaseMs } = opts;
  const db = database.db;
  const servedTtlMs = opts.servedTtlMs ?? leaseMs * 3;
  return {
    claim: (limit, { includeOwn }) =>
      claim(db, { versions, owner: workerId, leaseMs, limit, includeOwn }),
    renew: (leases) => renew(db, leases, workerId, leaseMs),
    ack: async (leases) => {
      await ack(db, leases);
    },
    release: async (leases, delayMs) => {
      await release(db, leases, delayMs);
    },
    heartbeat: () => heartbeatServed(db, workerId, versions, servedTtlMs),
    unregister: () => removeServed(db, workerId),
  };
}
