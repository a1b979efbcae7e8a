// What every dialect's embedded claim shares (write-model/claim-jobs.ts for the protocol): its
// options and result, and the read of running rows to take back (a lapsed lease, or the owner's
// own after a restart), written once with each dialect's parameters.

import type { JobState, VersionKey } from '@sluice/contracts';
import type { JobSnapshot } from './snapshot-row.js';

export interface ClaimOptions {
  versions: readonly VersionKey[];
  owner: string;
  leaseMs: number;
  limit: number;
  /** Also take back running jobs this owner still holds (after a restart under the same id). */
  includeOwn?: boolean | undefined;
  /** Jobs not to take back with `includeOwn` (the ones this process runs). */
  exclude?: readonly string[] | undefined;
  now?: number | undefined;
}

export interface ClaimedJob {
  /** The row as the claim left it: `running` at the new epoch. */
  job: JobSnapshot;
  /** Where it came from: `queued`, or `running` (a lapsed or own lease). */
  from: JobState;
}

/** A row a claim picked, before it starts it. */
export type Candidate = { id: string; state: string; priority: number; created_at: string };

/**
 * Running rows to take back, oldest lease first. `own` null: lapsed leases only (a plain range
 * on the running rows' lease index); else also the owner's own rows that `mine` allows.
 */
export const runningCandidates = (
  served: string,
  now: string,
  own: string | null,
  limit: string,
  mine: string,
) =>
  `select id, state, priority, created_at from jobs where state = 'running'
     and ${own === null ? `lease_until <= ${now}` : `(lease_until <= ${now} or (lease_owner = ${own} and ${mine}))`}
     and ${served} and attempts < max_attempts order by lease_until limit ${limit}`;
