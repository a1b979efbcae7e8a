// `jobs.*`: submit, read, cancel, result, and the two subscriptions. Every call is scoped to
// the caller's tenant; another tenant's job answers exactly like a missing one.

import {
  CancelResult,
  ChildrenInput,
  ChildrenResult,
  createSubmitSchema,
  FeedItem,
  GetInput,
  HoldInput,
  HoldResult,
  JobEvent,
  JobResult,
  JobView,
  ListInput,
  ListResult,
  SluiceError,
  SignalInput,
  SignalResult,
  SubmitResult,
  transition,
  WatchAllInput,
  WatchInput,
  type JobRegistry,
  type SubmitInput,
} from '@sluice/contracts';
import {
  appendAudit,
  getJob,
  listChildren,
  listJobs,
  setJobHold,
  writeTogether,
} from '@sluice/storage/portable';
import type { z } from 'zod';
import { openJobWatch } from '../events/watch-job.js';
import { watchTenant } from '../events/watch-tenant.js';
import { toJobResult, toJobView } from '../job-view.js';
import { zIterable, zTrackedIterable } from '../trpc/async-iterable.js';
import { streamSignal, type Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';
import { createDownloadProcedures } from './downloads.js';
import { createOperatorActionProcedures } from './operator-actions.js';
import { createOperatorJobProcedures } from './operator-jobs.js';
import { runJobAction } from '../operator/run-action.js';

const notFound = () => new SluiceError('NOT_FOUND', 'job not found');

export function createJobsRouter<R extends JobRegistry>(p: Procedures, deps: RouterDeps<R>) {
  const { database, hub } = deps;
  const db = database.db;
  // contracts types the schema as ZodType<SubmitInput<R>> (input side `unknown`); tRPC infers a
  // procedure's input from the schema's input side, so name it here: callers of AppRouter<R>
  // then get the discriminated union.
  const submitInput = createSubmitSchema(deps.jobs) as z.ZodType<SubmitInput<R>, SubmitInput<R>>;
  const watchOutput = zTrackedIterable(JobEvent);
  const feedOutput = zIterable(FeedItem);

  async function ownJob(tenantId: string, id: string) {
    const job = await getJob(db, tenantId, id);
    if (!job) throw notFound();
    return job;
  }

  return p.router({
    submit: p
      .scoped('jobs:submit')
      .input(submitInput)
      .output(SubmitResult)
      .mutation(({ ctx, input }) => deps.accept(ctx.tenantId, input, ctx.traceparent, ctx.keyId)),

    get: p
      .scoped('jobs:read')
      .input(GetInput)
      .output(JobView)
      .query(async ({ ctx, input }) => toJobView(await ownJob(ctx.tenantId, input.id))),

    list: p
      .scoped('jobs:read')
      .input(ListInput)
      .output(ListResult)
      .query(async ({ ctx, input }) => {
        const page = await listJobs(db, ctx.tenantId, input);
        return { items: page.items.map(toJobView), nextCursor: page.nextCursor };
      }),

    cancel: p
      .scoped('jobs:submit')
      .input(GetInput)
      .output(CancelResult)
      .mutation(async ({ ctx, input }) => {
        const job = await ownJob(ctx.tenantId, input.id);
        // Cancelling a cancelled job is a no-op that answers the same.
        if (job.state === 'cancelled') return { id: job.id, state: job.state };
        const legal = transition(job.state, 'cancel');
        if (!legal.ok) throw new SluiceError('CONFLICT', legal.error.message);
        try {
          const r = await runJobAction(deps as RouterDeps, ctx, job.id, { action: 'cancel' });
          return { id: job.id, state: r.job.state };
        } catch (error) {
          // It moved meanwhile (a worker finished it, another cancel won).
          const now = await getJob(db, ctx.tenantId, job.id);
          if (now?.state === 'cancelled') return { id: job.id, state: now.state };
          throw error;
        }
      }),

    // A signal steers a job the caller may submit and cancel: the same scope, `jobs:submit`.
    signal: p
      .scoped('jobs:submit')
      .input(SignalInput)
      .output(SignalResult)
      .mutation(({ ctx, input }) => {
        if (!deps.waits)
          throw new SluiceError('BAD_REQUEST', 'this runtime cannot suspend jobs (durableWaits)', {
            details: { capability: 'durableWaits' },
          });
        return deps.waits.signal(ctx.tenantId, input);
      }),

    children: p
      .scoped('jobs:read')
      .input(ChildrenInput)
      .output(ChildrenResult)
      .query(async ({ ctx, input }) => {
        await ownJob(ctx.tenantId, input.id);
        return { items: await listChildren(db, ctx.tenantId, input.id) };
      }),

    // A legal hold: retention never removes the job while it is set (an operator's call).
    hold: p
      .scoped('jobs:manage')
      .input(HoldInput)
      .output(HoldResult)
      .mutation(async ({ ctx, input }) => {
        // The hold and its audit entry together (one transaction where the database has them).
        const held = await writeTogether(deps.database, async (tx) => {
          const set = await setJobHold(tx, ctx.tenantId, input.id, input.hold);
          if (!set) throw notFound();
          await appendAudit(tx, [
            {
              tenantId: ctx.tenantId,
              keyId: ctx.keyId ?? null,
              action: 'job.hold',
              target: set.id,
              note: null,
              details: { hold: set.hold },
            },
          ]);
          return set;
        });
        deps.logger.info?.('job hold set', { jobId: held.id, hold: held.hold, keyId: ctx.keyId });
        return held;
      }),

    result: p
      .scoped('jobs:read')
      .input(GetInput)
      .output(JobResult)
      .query(async ({ ctx, input }) => toJobResult(await ownJob(ctx.tenantId, input.id))),

    watch: p
      .scoped('jobs:read')
      .input(WatchInput)
      .output(watchOutput)
      .subscription(({ ctx, input, signal }) =>
        openJobWatch({ db, hub }, ctx.tenantId, input, streamSignal(signal, ctx.streamEnded)),
      ),

    watchAll: p
      .scoped('jobs:read')
      .input(WatchAllInput)
      .output(feedOutput)
      .subscription(({ ctx, input, signal }) =>
        watchTenant(hub, ctx.tenantId, input, streamSignal(signal, ctx.streamEnded)),
      ),

    // `assets`, `assetUrl`
    ...createDownloadProcedures(p, deps as RouterDeps).jobs,
    // `search`, `detail`
    ...createOperatorJobProcedures(p, deps as RouterDeps),
    // `requeue`, `rerun`
    ...createOperatorActionProcedures(p, deps as RouterDeps),
  });
}
