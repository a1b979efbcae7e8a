// The embedded runtime's queue is the jobs table: a claim is the start of the attempts. A claimed
// row is `running` at a new epoch with a fresh attempt id and a lease held by `owner`; its
// `running` event is not written here: the attempt writes it with its first events (so a job
// that finishes fast writes ONE event row in all), and `last_seq` is left alone until then.
// Each dialect claims its own way (`StorageDialect.claimJobs`, dialect/*/claim-jobs.ts): ONE
// statement on PostgreSQL (an `UPDATE` of the candidates picked `FOR UPDATE SKIP LOCKED` through
// the partial indexes of queued and running rows), one immediate transaction on SQLite (a single
// writer: nothing to skip), and on D1 a read, then one UPDATE fenced by epoch.
//
// Candidates: running rows whose lease lapsed (their holder died) and, while the owner recovers
// after a restart, running rows it held itself; then queued rows that are due, fair across
// tenants (fair-queued.ts: round-robin within a priority level). Rows with no attempts left are
// not claimed (the maintenance sweep dead-letters them).

import type { SluiceDatabase } from '../database.js';
import { isoIn, isoNow } from '../json.js';
import type { ClaimedJob, ClaimOptions } from './claim-shared.js';

export type { Candidate, ClaimedJob, ClaimOptions } from './claim-shared.js';

export async function claimJobs(
  database: SluiceDatabase,
  opts: ClaimOptions,
): Promise<ClaimedJob[]> {
  if (opts.versions.length === 0 || opts.limit <= 0) return [];
  const now = opts.now ?? Date.now();
  const own = opts.includeOwn ? opts.owner : null;
  return database.dialect.claimJobs(opts, isoNow(now), isoIn(opts.leaseMs, now), own);
}

/**
 * Gives claimed jobs that never ran back to the queue, due after `delayMs`: only rows still held
 * at the epoch their claim set (a later claim's row is left alone). The attempt the claim counted
 * is handed back; the epoch stays raised, so nothing of the returned claim can write any more.
 */
export async function unclaimJobs(
  database: SluiceDatabase,
  leases: readonly { jobId: string; epoch: number }[],
  delayMs: number,
  now = Date.now(),
): Promise<number> {
  if (leases.length === 0) return 0;
  const due = delayMs > 0 ? isoIn(delayMs, now) : null;
  return database.dialect.unclaimJobs(leases, due, isoNow(now));
}
