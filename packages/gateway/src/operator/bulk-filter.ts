// What a bulk action runs over: the operation's filter on the key's own tenant, narrowed to the
// states the action can move (so the runner never reads jobs it would only skip), and bounded to
// jobs created before it started (so the set does not grow while it runs).

import {
  SluiceError,
  TRANSITIONS,
  type BulkAction,
  type JobFilter,
  type JobState,
} from '@sluice/contracts';
import type { JobSearch } from '@sluice/storage/portable';
import { toJobSearch } from './search-scope.js';

/** The states `action` moves a job from. */
export function sourceStatesOf(action: BulkAction): readonly JobState[] {
  return TRANSITIONS[action].from;
}

/** The operation's search; a filter that names a tenant is refused (bulk acts on its own). */
export function bulkSearch(
  tenantId: string,
  action: BulkAction,
  filter: JobFilter,
  until?: string,
): JobSearch {
  if (filter.tenant !== undefined && filter.tenant !== tenantId) {
    throw new SluiceError(
      'BAD_REQUEST',
      "filter.tenant: a bulk operation acts on the key's own tenant",
      {
        details: { field: 'filter.tenant' },
      },
    );
  }
  const search = toJobSearch({ tenantId, scopes: [] }, { ...filter, tenant: undefined });
  const movable = sourceStatesOf(action);
  const states = filter.states ? filter.states.filter((s) => movable.includes(s)) : [...movable];
  return { ...search, states, ...(until ? { until } : {}) };
}
