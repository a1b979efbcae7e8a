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
  type Db,
  type SluiceDatabase,
} from '@sluice/storage';
import { isoIn } from '@sluice/storage';
import type { EmbeddedQueueStore } from '../runtimes/types.js';
import { seededBug } from '../testing/seeded-bug.js';

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
    renew: async (leases) => {
      if (!seededBug('renew-unowned')) return renew(db, leases, workerId, leaseMs);
      // Seeded bug: renew by job id alone, taking the row back from whoever claimed it since.
      const renewed = new Set<string>();
      for (const l of leases) {
        const r = await db
          .updateTable('queue')
          .set({ lease_owner: workerId, lease_token: l.token, lease_expires_at: isoIn(leaseMs) })
          .where('job_id', '=', l.jobId)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) > 0) renewed.add(l.jobId);
      }
      return renewed;
    },
    ack: async (leases, tx) => {
      // `tx` is a transaction on this same database (the terminal writer's).
      await ack(tx === undefined ? db : (tx as Db), leases);
    },
    release: async (leases, delayMs) => {
      await release(db, leases, delayMs);
    },
    heartbeat: () => heartbeatServed(db, workerId, versions, servedTtlMs),
    unregister: () => removeServed(db, workerId),
  };
}
