// Shared limits (issue 15): what a provider declaration, and the deployment's config, may cap.
// Every replica shares them (the job database holds the counters), and a call over a limit
// waits rather than fails.

import { z } from 'zod';

/** Caps on one provider across every worker: concurrent guarded calls, and calls per second. */
export const ProviderLimit = z
  .object({
    maxConcurrent: z.number().int().positive().optional(),
    callsPerSecond: z.number().positive().optional(),
    /**
     * How long a call waits for room (default 30 s). Past it the attempt gives its job back
     * with `run_after` (a `RetryAfterError`, which spends one attempt of the job's budget).
     */
    maxWaitMs: z.number().int().nonnegative().optional(),
  })
  .strict();
export type ProviderLimit = z.infer<typeof ProviderLimit>;

/** `limits.providers` of the deployment's config: provider name → its limit (wins over code). */
export const ProviderLimits = z.record(z.string().min(1).max(100), ProviderLimit);
export type ProviderLimits = z.infer<typeof ProviderLimits>;
