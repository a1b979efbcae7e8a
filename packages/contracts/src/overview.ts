// `jobs.overview`: what an operator's front page shows, from cheap bounded reads: open jobs by
// kind and state (with the oldest queued one per kind, the queue's age), why jobs wait or are
// parked, and the tenant's schedules are listed apart (`schedules.list`).

import { z } from 'zod';
import { JOB_STATES } from './state-machine.js';

export const OverviewInput = z.object({}).strict().optional();
export const OverviewResult = z.object({
  /** Open jobs (accepted, queued, running, needs_review, dead_lettered) by kind and state. */
  open: z.array(z.object({ kind: z.string(), state: z.enum(JOB_STATES), count: z.number().int() })),
  /** Per kind: jobs queued and the oldest one's creation time and age in ms. */
  queues: z.array(
    z.object({
      kind: z.string(),
      depth: z.number().int(),
      oldestAt: z.string(),
      oldestAgeMs: z.number().int(),
    }),
  ),
  /** Why jobs wait (open durable waits by wait kind) or are parked (reason, by state). */
  waiting: z.array(
    z.object({
      state: z.enum(JOB_STATES),
      reason: z.string(),
      count: z.number().int(),
    }),
  ),
  at: z.string(),
});
export type OverviewResult = z.infer<typeof OverviewResult>;
