// Job events: every state transition and progress report is stored with a per-job sequence
// number assigned in the same compare-and-set as the change. The sequence number is the tracked
// event id of subscriptions, so a client that reconnects resumes after its last event.

import { z } from 'zod';
import { ERROR_CODES, type JobError as JobErrorType } from './errors.js';
import { JOB_STATES } from './state-machine.js';

export const JobErrorSchema: z.ZodType<JobErrorType> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('sluice'),
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
    z.object({ kind: z.literal('non_retriable'), message: z.string() }),
    z.object({ kind: z.literal('retry_after'), message: z.string(), retryAfterMs: z.number() }),
    z.object({ kind: z.literal('needs_review'), message: z.string() }),
    z.object({
      kind: z.literal('units_failed'),
      message: z.string(),
      causes: z.array(z.object({ unitKey: z.string(), error: JobErrorSchema })),
    }),
    z.object({
      kind: z.literal('error'),
      name: z.string(),
      message: z.string(),
      stack: z.string().optional(),
    }),
    z.object({ kind: z.literal('unknown'), message: z.string() }),
  ]),
);

const state = z.enum(JOB_STATES);
const base = {
  jobId: z.string(),
  /** Per-job, starts at 1, increases by one with every stored event. */
  seq: z.number().int().positive(),
  /** ISO-8601 UTC with milliseconds. */
  at: z.string(),
};
const change = {
  from: state.nullable(),
  to: state,
  attempt: z.number().int().nonnegative().optional(),
};

export const StateEvent = z.object({
  ...base,
  ...change,
  type: z.literal('state'),
  reason: z.string().optional(),
  error: JobErrorSchema.optional(),
  /** On the move to `running`: the worker that took the job and the attempt's fencing token. */
  worker: z.string().optional(),
  epoch: z.number().int().optional(),
});
export const ProgressEvent = z.object({ ...base, type: z.literal('progress'), data: z.unknown() });
export const UnitDoneEvent = z.object({
  ...base,
  type: z.literal('unit_done'),
  unitKey: z.string(),
  /** True when an earlier attempt's checkpoint was reused instead of running the unit. */
  reused: z.boolean().optional(),
});
/**
 * A running job waits for a shared limit: `by` names it (`provider:<name>`,
 * `tenant:<id>`, `kind:<kind>`). Written once per wait; the next event of the job ends it.
 */
export const WaitingEvent = z.object({
  ...base,
  type: z.literal('waiting'),
  reason: z.enum(['rate_limited', 'concurrency_limited']),
  by: z.string(),
});
export const NeedsReviewEvent = z.object({
  ...base,
  ...change,
  type: z.literal('needs_review'),
  reason: z.string(),
  unitKey: z.string().optional(),
  provider: z.string().optional(),
  error: JobErrorSchema.optional(),
});
export const DeadLetterEvent = z.object({
  ...base,
  ...change,
  type: z.literal('dead_letter'),
  /** e.g. VERSION_NOT_ROUTABLE, MAX_ATTEMPTS. */
  reason: z.string(),
  detail: z.string().optional(),
  error: JobErrorSchema.optional(),
});

export const JobEvent = z.discriminatedUnion('type', [
  StateEvent,
  ProgressEvent,
  UnitDoneEvent,
  WaitingEvent,
  NeedsReviewEvent,
  DeadLetterEvent,
]);
export type JobEvent = z.infer<typeof JobEvent>;
export type JobEventType = JobEvent['type'];
export type StateChangeEvent = Extract<JobEvent, { to: unknown }>;
