// `EmbeddedQueueStore` over `@sluice/storage`: the jobs table as the queue (claims start jobs,
// unclaims give back jobs that never ran, exhausted jobs are dead-lettered on the heartbeat),
// the served-versions registry, and the work signal
// (LISTEN on PostgreSQL, a WAL watch on SQLite) that ends an idle wait early.

import type { VersionKey } from '@sluice/contracts';
import {
  ageQueuedJobs,
  claimJobs,
  createWorkSignal,
  heartbeatServed,
  removeServed,
  sweepExhausted,
  unclaimJobs,
  type SluiceDatabase,
  type WorkSignal,
} from '@sluice/storage';
import type { EmbeddedQueueStore } from '../runtimes/types.js';

export interface EmbeddedQueueStoreOptions {
  database: SluiceDatabase;
  /** Lease owner and served-versions worker id: stable per worker. */
  workerId: string;
  versions: readonly VersionKey[];
  leaseMs: number;
  /** How long a served-versions heartbeat counts (default 3 × leaseMs). */
  servedTtlMs?: number;
  /** A queued job is raised one priority level per this much waiting (default 30 s). */
  agingMs?: number;
}

export const DEFAULT_AGING_MS = 30_000;

export function createEmbeddedQueueStore(opts: EmbeddedQueueStoreOptions): EmbeddedQueueStore {
  const { database, workerId, versions, leaseMs } = opts;
  const db = database.db;
  const servedTtlMs = opts.servedTtlMs ?? leaseMs * 3;
  let signal: WorkSignal | undefined;
  return {
    claim: (limit, { includeOwn, exclude }) =>
      claimJobs(database, { versions, owner: workerId, leaseMs, limit, includeOwn, exclude }),
    unclaim: async (leases, delayMs) => {
      await unclaimJobs(database, leases, delayMs);
    },
    waitForWork: (ms, abort) => (signal ??= createWorkSignal(database)).wait(ms, abort),
    // Also the jobs no claim will take any more (a worker died holding their last attempt), and
    // priority aging (so a low-priority job is not starved by a stream of urgent ones).
    heartbeat: async () => {
      await heartbeatServed(db, workerId, versions, servedTtlMs);
      await sweepExhausted(database);
      await ageQueuedJobs(database, opts.agingMs ?? DEFAULT_AGING_MS);
    },
    unregister: () => removeServed(db, workerId),
    close: async () => {
      await signal?.close();
      signal = undefined;
    },
  };
}
