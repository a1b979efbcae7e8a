// The worker's limits from its options: the start gate (start limits of each kind, by the
// deployment's config or the kind's declaration) and the provider limiter, each built only when
// something is limited, with the options checked here so a bad one is an INVALID_CONFIG naming it
// before the worker starts.

import { KindLimits, ProviderLimits, SluiceError, type JobRegistry } from '@sluice/contracts';
import { z } from 'zod';
import type { SluiceDatabase } from '@sluice/storage';
import {
  createProviderLimiter,
  resolveProviderLimits,
  type LimitObserver,
} from '../guard/provider-limiter.js';
import { createStartGate, resolveKindLimits } from './start-gate.js';

/** The worker options the limits are built from (create-worker.ts documents each). */
export interface LimitOptions {
  jobs: JobRegistry;
  database: SluiceDatabase;
  limits?: { providers?: ProviderLimits | undefined; kinds?: KindLimits | undefined } | undefined;
  limitHoldMs?: number | undefined;
  limitHoldMaxMs?: number | undefined;
  limitWaitBackstopMs?: number | undefined;
}

/** The hold delays of the start gate: whole milliseconds, none negative. */
const HoldDelays = z.object({
  limitHoldMs: z.number().int().nonnegative().optional(),
  limitHoldMaxMs: z.number().int().nonnegative().optional(),
  limitWaitBackstopMs: z.number().int().positive().optional(),
});

/** The start gate, when any kind has start limits by config or declaration. */
export function gateFor(opts: LimitOptions, observer: LimitObserver, renewEveryMs: number) {
  const config = KindLimits.safeParse(opts.limits?.kinds ?? {});
  if (!config.success)
    throw new SluiceError('INVALID_CONFIG', `limits.kinds: ${config.error.message}`);
  const hold = HoldDelays.safeParse({
    limitHoldMs: opts.limitHoldMs,
    limitHoldMaxMs: opts.limitHoldMaxMs,
    limitWaitBackstopMs: opts.limitWaitBackstopMs,
  });
  if (!hold.success) throw new SluiceError('INVALID_CONFIG', `limit hold: ${hold.error.message}`);
  const limits = resolveKindLimits(opts.jobs, config.data);
  if (limits.size === 0) return undefined;
  return createStartGate({
    database: opts.database,
    limits,
    // Three renewal periods: one missed renewal round never frees a running job's slot.
    slotTtlMs: 3 * renewEveryMs,
    holdMs: opts.limitHoldMs,
    holdMaxMs: opts.limitHoldMaxMs,
    waitBackstopMs: opts.limitWaitBackstopMs,
    observer,
  });
}

/** The provider limiter, when any provider is limited by config or declaration. */
export function limiterFor(opts: LimitOptions, observer: LimitObserver) {
  const config = ProviderLimits.safeParse(opts.limits?.providers ?? {});
  if (!config.success)
    throw new SluiceError('INVALID_CONFIG', `limits.providers: ${config.error.message}`);
  const limits = resolveProviderLimits(opts.jobs, config.data);
  if (limits.size === 0) return undefined;
  return createProviderLimiter({ database: opts.database, limits, observer });
}
