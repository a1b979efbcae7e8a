// The operator plane of the typed client: search and detail (scope `jobs:read`); requeue, rerun,
// bulk operations and the audit log (scope `jobs:manage`). Kept beside the submitter's surface
// (create-sluice-client.ts) so an app that only submits never reads it.

import {
  API_PATHS,
  type ActivityResult,
  type JobDetail,
  type OverviewResult,
  type OperatorActionResult,
  type SearchInput,
  type SearchResult,
} from '@sluice/contracts/wire';
import { mutate, query } from './rpc.js';
import type { Transport } from './transport.js';

export interface OperatorJobs {
  /**
   * Jobs by kind, version, states, tags (all of them), metadata keys/values, created/finished
   * ranges and error text, newest first; `nextCursor` continues. `tenant` (another tenant's id
   * or `*`) only with an `admin` key.
   */
  search(filter?: SearchInput): Promise<SearchResult>;
  /** The job with its attempts, units, provider-call ledger with bills, assets and events. */
  detail(id: string, opts?: { tenant?: string | undefined }): Promise<JobDetail>;
  /** Open jobs by kind and state, queue depth and oldest age per kind, why jobs wait. */
  overview(): Promise<OverviewResult>;
  /**
   * Jobs finished per state in the last 15 minutes and hour, the gateway's latency histograms,
   * and the workers running the tenant's jobs (`tenant: '*'`, admin only: every live worker).
   */
  activity(opts?: { tenant?: string | undefined }): Promise<ActivityResult>;
  /**
   * A failed or dead-lettered job back in the queue with a fresh attempt budget (scope
   * `jobs:manage`). Its checkpoints and provider-call ledger are kept: a billed call is not
   * billed again.
   */
  requeue(id: string, opts?: { note?: string | undefined }): Promise<OperatorActionResult>;
  /**
   * A succeeded, failed or dead-lettered job runs again under a new epoch (scope `jobs:manage`):
   * checkpoints reused except `fromUnit`'s and those stored after it; the ledger whole, so a
   * call that was answered is answered from it and never billed twice.
   */
  rerun(
    id: string,
    opts?: { fromUnit?: string | undefined; note?: string | undefined },
  ): Promise<OperatorActionResult>;
}

function defined(o: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined));
}

export function operatorJobs(transport: Transport): OperatorJobs {
  return {
    search: (filter) => query(transport, API_PATHS.search, defined(filter)),
    detail: (id, opts) => query(transport, API_PATHS.detail, { id, ...defined(opts) }),
    overview: () => query(transport, API_PATHS.overview, {}),
    activity: (opts) => query(transport, API_PATHS.activity, defined(opts)),
    requeue: (id, opts) => mutate(transport, API_PATHS.requeue, { id, ...defined(opts) }),
    rerun: (id, opts) => mutate(transport, API_PATHS.rerun, { id, ...defined(opts) }),
  };
}
