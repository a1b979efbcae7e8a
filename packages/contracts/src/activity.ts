// `jobs.activity`: the overview's second half, what has been happening rather than what is open:
// jobs finished per state in the last 15 minutes and hour, the latency histograms this gateway's
// own metrics registry holds, and the live workers with the running jobs each holds.

import { z } from 'zod';
import { JOB_STATES } from './state-machine.js';

/** `tenant`: as in a search, for `admin` keys only (another tenant, or `*` for every tenant). */
export const ActivityInput = z
  .object({ tenant: z.string().min(1).max(200).optional() })
  .strict()
  .optional();
export type ActivityInput = z.input<typeof ActivityInput>;

export const ACTIVITY_WINDOWS = ['15m', '1h'] as const;

export const HistogramView = z.object({
  name: z.string(),
  help: z.string(),
  count: z.number(),
  /** Sum of the observed values (seconds). */
  sum: z.number(),
  /** Cumulative counts at each upper bound in seconds; `le` null is +Inf. */
  buckets: z.array(z.object({ le: z.number().nullable(), count: z.number() })),
});
export type HistogramView = z.infer<typeof HistogramView>;

export const ActivityResult = z.object({
  /** Jobs that reached a final state (succeeded, failed, cancelled, stale) in each window. */
  finished: z.array(
    z.object({
      window: z.enum(ACTIVITY_WINDOWS),
      state: z.enum(JOB_STATES),
      count: z.number().int(),
    }),
  ),
  /**
   * Latency histograms of this gateway process (its registry, all label values summed):
   * submit latency always; dispatch→start and run duration where a worker shares the registry.
   */
  latency: z.array(HistogramView),
  /**
   * Workers holding running jobs of the tenant (an admin's `*`: every live worker), with the
   * running jobs each holds and its liveness row (null: it keeps none, an older worker).
   */
  workers: z.array(
    z.object({
      workerId: z.string(),
      running: z.number().int(),
      startedAt: z.string().nullable(),
      /** Last beat plus the time a beat counts; past: the worker is presumed dead. */
      aliveUntil: z.string().nullable(),
    }),
  ),
  at: z.string(),
});
export type ActivityResult = z.infer<typeof ActivityResult>;
