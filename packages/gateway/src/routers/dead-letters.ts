// `deadLetters.*`: the tenant's dead-lettered jobs, and requeue. A requeue resets the attempt
// budget, clears the row's error (the event history keeps it), records who requeued it and
// dispatches again: in the same transaction for in-transaction runtimes, through the outbox
// otherwise (operator/run-action.ts, shared with `jobs.requeue` and bulk operations).

import { CancelResult, GetInput, ListResult, PageInput, SluiceError } from '@sluice/contracts';
import { getJob, listJobs } from '@sluice/storage/portable';
import { toJobView } from '../job-view.js';
import { runJobAction } from '../operator/run-action.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

export const RequeueResult = CancelResult;

export function createDeadLettersRouter(p: Procedures, deps: RouterDeps) {
  const { database } = deps;
  return p.router({
    list: p
      .scoped('jobs:read')
      .input(PageInput)
      .output(ListResult)
      .query(async ({ ctx, input }) => {
        const page = await listJobs(database.db, ctx.tenantId, {
          ...input,
          state: 'dead_lettered',
        });
        return { items: page.items.map(toJobView), nextCursor: page.nextCursor };
      }),

    requeue: p
      .scoped('dead-letters:manage')
      .input(GetInput)
      .output(RequeueResult)
      .mutation(async ({ ctx, input }) => {
        const job = await getJob(deps.database.db, ctx.tenantId, input.id);
        if (!job) throw new SluiceError('NOT_FOUND', 'job not found');
        // This path is the dead-letter queue's: a failed job is requeued with `jobs.requeue`.
        if (job.state !== 'dead_lettered') {
          throw new SluiceError('CONFLICT', `cannot requeue a job that is ${job.state}`);
        }
        const r = await runJobAction(deps, ctx, job.id, { action: 'requeue' });
        return { id: job.id, state: r.job.state };
      }),
  });
}
