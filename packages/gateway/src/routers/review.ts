// `review.*`: jobs parked in needs_review, and a person's decision on them. Tenant-scoped:
// another tenant's job answers exactly like a missing one.
//
//   list     the tenant's needs_review jobs, each with the reason, unit and provider of its last
//            needs_review event and the calls in billing doubt an approval would authorise
//   approve  authorises exactly ONE more call of each call left in billing doubt (a ledger row
//            `authorised`, with who and why), then `approve` → queued with a fresh attempt
//            budget, and dispatches again — in one transaction with the dispatch for
//            in-transaction runtimes, through the outbox and a post-commit dispatch otherwise.
//            Refused (CONFLICT, reason FAIL_CLOSED) when the review came from a call refused
//            before sending: no approval can let that through, it would only park again.
//            Both decisions are recorded in the audit log with the note (operator/run-action.ts).
//   discard  `discard` → failed, the note kept as the reason

import {
  JobView,
  PageInput,
  ReviewDecisionInput,
  ReviewListResult,
  SluiceError,
  type JobEvent,
} from '@sluice/contracts';
import { callsForJob, getJob, listEvents, listJobs, type JobRow } from '@sluice/storage/portable';
import { z } from 'zod';
import { toJobView } from '../job-view.js';
import { runJobAction } from '../operator/run-action.js';
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
  const db = deps.database.db;

  async function parked(tenantId: string, id: string): Promise<JobRow> {
    const job = await getJob(db, tenantId, id);
    if (!job) throw notFound();
    if (job.state !== 'needs_review') {
      throw new SluiceError('CONFLICT', `job is ${job.state}, not needs_review`);
    }
    return job;
  }

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
        await parked(ctx.tenantId, input.id);
        const r = await runJobAction(deps, ctx, input.id, { action: 'approve', note: input.note });
        return {
          id: r.job.id,
          kind: r.job.kind,
          state: 'queued' as const,
          authorised: r.authorised,
        };
      }),

    discard: p
      .scoped('review:decide')
      .input(ReviewDecisionInput)
      .output(JobView)
      .mutation(async ({ ctx, input }) => {
        await parked(ctx.tenantId, input.id);
        const r = await runJobAction(deps, ctx, input.id, { action: 'discard', note: input.note });
        return toJobView(r.job);
      }),
  });
}
