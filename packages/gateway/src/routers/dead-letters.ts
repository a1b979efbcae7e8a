// `deadLetters.*`: the tenant's dead-lettered jobs, and requeue. A requeue resets the attempt
// budget, clears the row's reason and error (the event history keeps them) and dispatches again:
// in the same transaction for in-transaction runtimes, through the outbox otherwise.

import {
  CancelResult,
  GetInput,
  ListResult,
  PageInput,
  SluiceError,
  type MessagePointer,
} from '@sluice/contracts';
import { getJob, listJobs, transitionJob } from '@sluice/storage/portable';
import { toJobView } from '../job-view.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

export const RequeueResult = CancelResult;

export function createDeadLettersRouter(p: Procedures, deps: RouterDeps) {
  const { database, hub, dispatch } = deps;
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
        const job = await getJob(database.db, ctx.tenantId, input.id);
        if (!job) throw new SluiceError('NOT_FOUND', 'job not found');
        if (job.state !== 'dead_lettered') {
          throw new SluiceError('CONFLICT', `cannot requeue a job that is ${job.state}`);
        }
        const pointer: MessagePointer = {
          jobId: job.id,
          kind: job.kind,
          version: job.version,
          tenantId: job.tenantId,
          priority: job.priority,
        };
        const r = await database.transaction(async (tx) => {
          const moved = await transitionJob(tx, {
            id: job.id,
            event: 'requeue',
            resetAttempts: true,
            reason: null,
            error: null,
          });
          if (moved.ok) await dispatch.stage(tx, [pointer]);
          return moved;
        });
        if (!r.ok) {
          throw new SluiceError(
            'CONFLICT',
            `cannot requeue a job that is ${r.job?.state ?? 'gone'}`,
          );
        }
        hub.publish([r.event]);
        await dispatch.afterCommit([pointer], { markQueued: false });
        return { id: job.id, state: r.job.state };
      }),
  });
}
