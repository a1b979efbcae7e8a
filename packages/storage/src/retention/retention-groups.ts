// Where the removable jobs are and how overdue they are: the (kind, tenant) groups of each
// removable state, each with its oldest row (retention-sql.ts `groupsSql`: one index probe per
// group). A group's rule is one number — the policy decides per state, kind and tenant — so a
// group's expired rows are exactly a prefix of its range of the index. Read-only: any replica
// may compute the overview for its gauges.

import type { JobState, RetentionPolicy } from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoNow } from '../json.js';
import { groupsSql, type ExpiredGroup } from './retention-sql.js';

export interface RetentionGroup extends ExpiredGroup {
  state: JobState;
  /** ISO time of the group's oldest removable row. */
  oldest: string;
}

/** Every group of removable jobs in `state` whose oldest row is expired, with its cutoff. */
export async function expiredGroups(
  db: Db,
  policy: RetentionPolicy,
  state: JobState,
  now: number,
): Promise<RetentionGroup[]> {
  return (await groupsOf(db, policy, state, now)).filter((g) => g.oldest < g.cutoff);
}

/** Every group in `state` with its cutoff (`''` for a group kept forever: nothing sorts before it). */
async function groupsOf(
  db: Db,
  policy: RetentionPolicy,
  state: JobState,
  now: number,
): Promise<RetentionGroup[]> {
  const rows = (await groupsSql(state).execute(db)).rows;
  return rows.map((r) => {
    const keep = policy.keepMs(state, r.kind, r.tenant_id);
    return {
      state,
      kind: r.kind,
      tenantId: r.tenant_id,
      oldest: r.oldest,
      cutoff: keep === null ? '' : isoNow(now - keep),
    };
  });
}

export interface RetentionOverview {
  /** Age of the oldest removable (ended, not held) job, ms; 0 when there is none. */
  oldestAgeMs: number;
  /**
   * How long ago the most overdue job should have been removed, ms (0: nothing expired is left):
   * the sweep's lag. A healthy sweeper keeps it under its interval.
   */
  lagMs: number;
  /** Groups holding expired jobs. */
  expiredGroups: number;
}

/** The retention figures of the whole database, from the group probes alone. */
export async function retentionOverview(
  db: Db,
  policy: RetentionPolicy,
  now = Date.now(),
): Promise<RetentionOverview> {
  let oldest = Infinity;
  let lagMs = 0;
  let expired = 0;
  for (const state of policy.states) {
    for (const g of await groupsOf(db, policy, state, now)) {
      const t = Date.parse(g.oldest);
      oldest = Math.min(oldest, t);
      if (g.oldest < g.cutoff) {
        expired++;
        lagMs = Math.max(lagMs, Date.parse(g.cutoff) - t);
      }
    }
  }
  return {
    oldestAgeMs: Number.isFinite(oldest) ? Math.max(0, now - oldest) : 0,
    lagMs,
    expiredGroups: expired,
  };
}
