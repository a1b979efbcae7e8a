// Shared limits: what a provider declaration, and the deployment's config, may cap.
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
     * with `run_after` (a `LimitHeldError`: the attempt is refunded, the job waits `queued`).
     */
    maxWaitMs: z.number().int().nonnegative().optional(),
  })
  .strict();
export type ProviderLimit = z.infer<typeof ProviderLimit>;

/** `limits.providers` of the deployment's config: provider name → its limit (wins over code). */
export const ProviderLimits = z.record(z.string().min(1).max(100), ProviderLimit);
export type ProviderLimits = z.infer<typeof ProviderLimits>;

/**
 * Caps on when a job may START: at most `maxRunning` running at once, at most `startsPerSecond`
 * starts per second (a token bucket of capacity max(1, rate)). Checked at attempt start against
 * counters in the job database, so every worker shares them.
 */
export const StartLimit = z
  .object({
    maxRunning: z.number().int().positive().optional(),
    startsPerSecond: z.number().positive().optional(),
  })
  .strict();
export type StartLimit = z.infer<typeof StartLimit>;

/**
 * A job kind's start limits: the top-level caps count every job of the kind across
 * tenants; `perTenant` counts each tenant's jobs of the kind apart; `perKey` each submitting API
 * key's (jobs submitted without a key — schedules, internal callers — are not key-limited).
 * A job held by a limit waits `queued` (its attempt refunded) and never fails for it.
 */
export const JobLimits = StartLimit.extend({
  perTenant: StartLimit.optional(),
  perKey: StartLimit.optional(),
}).strict();
export type JobLimits = z.infer<typeof JobLimits>;

/** `limits.kinds` of the deployment's config: kind → its limits (replaces the declared ones). */
export const KindLimits = z.record(z.string().min(1).max(100), JobLimits);
export type KindLimits = z.infer<typeof KindLimits>;

/** Whether a limits object caps anything at all. */
export function limitsAnything(l: JobLimits | undefined): boolean {
  if (!l) return false;
  const any = (s: StartLimit | undefined) =>
    s !== undefined && (s.maxRunning !== undefined || s.startsPerSecond !== undefined);
  return any(l) || any(l.perTenant) || any(l.perKey);
}

/** Whether any of a kind's provider calls declares a limit (concurrent calls, calls per second). */
export function declaresProviderLimits(
  providers: Readonly<Record<string, { readonly limits?: ProviderLimit | undefined }>>,
): boolean {
  return Object.values(providers).some(
    (call) => call.limits?.maxConcurrent !== undefined || call.limits?.callsPerSecond !== undefined,
  );
}

/** Why a queued job is not running yet: the limit that held it, since when (ISO time). */
export const JobWaiting = z.object({
  reason: z.enum(['provider', 'tenant', 'kind', 'key', 'singleton']),
  /**
   * The limit's name: the provider, the kind, `<kind>/<tenant>` or `<kind>/<key id>`; for a
   * singleton held in `queue` mode, `<kind>/<singleton key>`.
   */
  name: z.string(),
  /** `concurrency`: at its max running (or concurrent calls); `rate`: out of starts (calls). */
  by: z.enum(['concurrency', 'rate']),
  since: z.string(),
});
export type JobWaiting = z.infer<typeof JobWaiting>;
