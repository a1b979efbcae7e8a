// How a parent's children stand, for a children wait: each child's end as the parent sees it,
// and whether the wait (`all` or `any`) is satisfied. A child counts as ended in a terminal
// state (parked ones included: a child in needs_review or dead-lettered is not coming back by
// itself, and the parent must be able to handle that as a typed failure).

import {
  isTerminalState,
  type ChildOutcome,
  type JobError,
  type JobState,
} from '@sluice/contracts';
import type { Db } from '../database.js';
import { fromJson } from '../json.js';

export async function childOutcomes(db: Db, ids: readonly string[]): Promise<ChildOutcome[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'state', 'output', 'error'])
    .where('id', 'in', [...ids])
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id): ChildOutcome => {
    const r = byId.get(id);
    // A child removed (retention, by hand) is an ended child without a result.
    if (!r) return { id, kind: '', state: 'stale', ok: false, error: null };
    const state = r.state as JobState;
    const ok = state === 'succeeded';
    return {
      id,
      kind: r.kind,
      state,
      ok,
      ...(ok ? { output: r.output === null ? null : fromJson(r.output) } : {}),
      ...(isTerminalState(state) && !ok
        ? { error: r.error === null ? null : fromJson<JobError>(r.error) }
        : {}),
    };
  });
}

/** The value of a satisfied children wait, or undefined while it must go on waiting. */
export function childrenSettled(
  outcomes: readonly ChildOutcome[],
  mode: 'all' | 'any',
): ChildOutcome[] | undefined {
  const ended = outcomes.filter((o) => isTerminalState(o.state));
  if (mode === 'all') return ended.length === outcomes.length ? [...outcomes] : undefined;
  return ended.length > 0 || outcomes.length === 0 ? [...outcomes] : undefined;
}
