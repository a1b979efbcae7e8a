// Priority aging: a queued job that has waited a whole aging period at its priority is raised
// one level (up to PRIORITY_MAX), so a steady stream of urgent jobs delays a low-priority one by
// a bounded time, never forever: from priority p it reaches the top after at most
// (PRIORITY_MAX − p) periods (plus one sweep interval each), then waits in age order. One
// statement, any dialect; racing sweeps raise a row once (the row's `priority_at` moved on).
//
// Only rows below the highest queued priority are raised: aging exists to get past higher
// work, and with none queued above a level, raising a long backlog would put it ahead of other
// tenants' newer jobs at that level and undo the fair round-robin (fair-queued.ts).

import { PRIORITY_MAX } from '@sluice/contracts';
import { sql } from 'kysely';
import type { SluiceDatabase } from '../database.js';
import { isoNow } from '../json.js';

/** Raises every queued job that waited `agingMs` at its priority; returns how many. */
export async function ageQueuedJobs(
  database: SluiceDatabase,
  agingMs: number,
  now = Date.now(),
): Promise<number> {
  const before = isoNow(now - agingMs);
  const result = await database.db
    .updateTable('jobs')
    .set((eb) => ({ priority: eb('priority', '+', 1), priority_at: isoNow(now) }))
    .where('state', '=', 'queued')
    .where('priority', '<', PRIORITY_MAX)
    .where(
      'priority',
      '<',
      sql<number>`(select max(top.priority) from jobs top where top.state = 'queued')`,
    )
    .where(sql<string>`coalesce(priority_at, created_at)`, '<=', before)
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0);
}
