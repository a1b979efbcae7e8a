// `jobs.search`, `jobs.detail` and `jobs.overview`: the operator's reads (scope `jobs:read`). Spread into the jobs
// router, as the download procedures are. Tenant-scoped; an admin key may name another tenant
// (or `*`) and then sees each job's tenant.

import {
  ActivityInput,
  ActivityResult,
  DetailInput,
  JobDetail,
  OverviewInput,
  OverviewResult,
  SearchInput,
  SearchResult,
  SluiceError,
} from '@sluice/contracts';
import { searchJobs } from '@sluice/storage/portable';
import { readFinished, readWorkers } from '../operator/activity.js';
import { readJobDetail } from '../operator/job-detail.js';
import { toLabelledView } from '../operator/job-views.js';
import { readOverview } from '../operator/overview.js';
import { tenantScope, toJobSearch } from '../operator/search-scope.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

export function createOperatorJobProcedures(p: Procedures, deps: RouterDeps) {
  const db = deps.database.db;
  return {
    search: p
      .scoped('jobs:read')
      .input(SearchInput)
      .output(SearchResult)
      .query(async ({ ctx, input }) => {
        const { cursor, limit, ...filter } = input;
        const search = toJobSearch(ctx, filter);
        const page = await searchJobs(db, search, { cursor, limit });
        return {
          items: page.items.map((j) => toLabelledView(j, search.tenantId !== ctx.tenantId)),
          nextCursor: page.nextCursor,
        };
      }),

    detail: p
      .scoped('jobs:read')
      .input(DetailInput)
      .output(JobDetail)
      .query(async ({ ctx, input }) => {
        const detail = await readJobDetail(db, tenantScope(ctx, input.tenant), input.id, deps.jobs);
        if (!detail) throw new SluiceError('NOT_FOUND', 'job not found');
        return detail;
      }),

    // Open jobs by kind and state, queue depth and age, why jobs wait: the operator's front page.
    overview: p
      .scoped('jobs:read')
      .input(OverviewInput)
      .output(OverviewResult)
      .query(({ ctx }) => readOverview(db, ctx.tenantId)),

    // What has been happening: finished per state (15 min, 1 h), latency histograms, workers.
    activity: p
      .scoped('jobs:read')
      .input(ActivityInput)
      .output(ActivityResult)
      .query(async ({ ctx, input }) => {
        const tenantId = tenantScope(ctx, input?.tenant);
        const now = Date.now();
        const [finished, workers, latency] = await Promise.all([
          readFinished(db, tenantId, now),
          readWorkers(db, tenantId, now),
          deps.latency?.() ?? [],
        ]);
        return { finished, latency, workers, at: new Date(now).toISOString() };
      }),
  };
}
