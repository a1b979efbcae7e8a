// `review.*`: jobs parked in needs_review, and a person's decision on them. Tenant-scoped:
// another tenant's job answers exactly like a missing one.
//
//   list     the tenant's needs_review jobs, each with the reason, unit and provider of its last
//            needs_review event and the calls in billing doubt an approval would authorise
//   approve  authorises exactly ONE more call of each call left in billing doubt (a ledger row
//            `authorised`, with who and why), then `approve` → queued with a fresh attempt
//            budget, and dispatches again — in one transaction with the dispatch for
//            in-transaction runtimes, through the outbox and a post-commit dispatch otherwise
//   discard  `discard` → failed, the note kept as the reason

import {
  JobView,
  PageInput,
  ReviewDecisionInput,
  ReviewListResult,
  SluiceError,
  type JobEvent,
  type MessagePointer,
} from '@sluice/contracts';
import {
  authoriseCall,
  callsForJob,
  getJob,
  listEvents,
  listJobs,
  transitionJob,
  type JobRow,
} from '@sluice/storage/portable';
import { z } from 'zod';
import { toJobView } from '../job-view.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';
import { blockedCalls } from './review-ledger.js';

export const ApproveResult = z.object({
  id: z.string(),
  kind: z.string(),
  state: z.enum(['queued']),
  /** Calls authorised once more (one per call left in doubt; 0 for a refusal or a job's own review). */
  authorised: z.number().int(),
});

const notFound = () => new SluiceError('NOT_FOUND', 'job not found');

async function lastReview(db: RouterDeps['database']['db'], job: JobRow) {
  // The review is the job's last event; a few before it are read in case of a racing write.
  const events = await listEvents(db, job.id, Math.max(0, job.lastSeq - 5));
  const event = events.findLast(
    (e): e is Extract<JobEvent, { type: 'needs_review' }> => e.type === 'needs_review',
  );
  return {
    reason: event?.reason ?? job.reason ?? 'needs review',
    unitKey: event?.unitKey ?? null,
    provider: event?.provider ?? null,
    at: event?.at ?? null,
    // The same rule approve applies: what a person's approval would let through once more.
    calls: blockedCalls(await callsForJob(db, job.id)),
  };
}

export function createReviewRouter(p: Procedures, deps: RouterDeps) {
  const { database, hub, dispatch } = deps;
  const db = database.db;

  async function parked(tenantId: string, id: string): Promise<JobRow> {
    const job = await getJob(db, tenantId, id);
    if (!job) throw notFound();
    if (job.state !== 'needs_review') {
      throw new SluiceError('CONFLICT', `job is ${job.state}, not needs_review`);
    }
    return job;
  }
  const conflict = (job: JobRow | undefined) =>
    new SluiceError('CONFLICT', `job is ${job?.state ?? 'gone'}, not needs_review`);

  return p.router({
    list: p
      .scoped('jobs:read')
      .input(PageInput)
      .output(ReviewListResult)
      .query(async ({ ctx, input }) => {
        const page = await listJobs(db, ctx.tenantId, { ...input, state: 'needs_review' });
        const items = await Promise.all(
          page.items.map(async (job) => ({ ...toJobView(job), review: await lastReview(db, job) })),
        );
        return { items, nextCursor: page.nextCursor };
      }),

    approve: p
      .scoped('review:decide')
      .input(ReviewDecisionInput)
      .output(ApproveResult)
      .mutation(async ({ ctx, input }) => {
        const job = await parked(ctx.tenantId, input.id);
        const by = ctx.keyId ?? ctx.tenantId;
        const pointer: MessagePointer = {
          jobId: job.id,
          kind: job.kind,
          version: job.version,
          tenantId: job.tenantId,
          priority: job.priority,
        };
        const r = await database.transaction(async (tx) => {
          const blocked = blockedCalls(await callsForJob(tx, job.id));
          for (const call of blocked) {
            await authoriseCall(tx, {
              jobId: job.id,
              tenantId: job.tenantId,
              unitKey: call.unitKey,
              callName: call.callName,
              by,
              note: input.note,
            });
          }
          const moved = await transitionJob(tx, {
            id: job.id,
            event: 'approve',
            resetAttempts: true,
            reason: `approved by ${by}: ${input.note}`,
            error: null,
          });
          // Throwing rolls the authorisations back with the failed transition.
          if (!moved.ok) throw conflict(moved.job);
          await dispatch.stage(tx, [pointer]);
          return { event: moved.event, authorised: blocked.length };
        });
        hub.publish([r.event]);
        await dispatch.afterCommit([pointer], { markQueued: false });
        return { id: job.id, kind: job.kind, state: 'queued' as const, authorised: r.authorised };
      }),

    discard: p
      .scoped('review:decide')
      .input(ReviewDecisionInput)
      .output(JobView)
      .mutation(async ({ ctx, input }) => {
        await parked(ctx.tenantId, input.id);
        const r = await database.transaction((tx) =>
          transitionJob(tx, { id: input.id, event: 'discard', reason: input.note }),
        );
        if (!r.ok) throw conflict(r.job);
        hub.publish([r.event]);
        return toJobView(r.job);
      }),
  });
}
