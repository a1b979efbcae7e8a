// Recurring schedules: a cron expression (read in an IANA time zone) that fires one job of a kind
// with a fixed input at every tick. The create input is a discriminated union over the registry,
// as `jobs.submit`'s is, so a schedule's input is validated and typed like a submit's. Cron
// syntax itself is checked by the gateway (it owns the cron library).

import { z } from 'zod';
import type { JobRegistry, inferJobInput } from './define-job.js';

export const MISSED_TICK_POLICIES = ['skip', 'catch_up'] as const;
export type MissedTickPolicy = (typeof MISSED_TICK_POLICIES)[number];
/** Most ticks one schedule fires after downtime under `catch_up`. */
export const MAX_CATCH_UP = 100;

export const ScheduleId = z.string().regex(/^s_[a-z2-7]{26}$/, 'not a schedule id');
export const ScheduleIdInput = z.object({ id: ScheduleId }).strict();

export interface ScheduleOptions {
  /** Five or six fields (seconds optional), e.g. `0 9 * * MON-FRI`. */
  cron: string;
  /** IANA zone the expression is read in (default `UTC`). */
  timezone?: string | undefined;
  /** Unique per tenant, for people and idempotent set-up scripts. */
  name?: string | undefined;
  /** After downtime: `skip` (default) fires only the latest missed tick; `catch_up` fires each. */
  missed?: MissedTickPolicy | undefined;
  /** `catch_up` fires at most this many missed ticks, the latest ones (default 10). */
  catchUpLimit?: number | undefined;
  /** Created paused (no tick fires until resumed). */
  paused?: boolean | undefined;
}

export type CreateScheduleInput<R extends JobRegistry> = {
  [K in Extract<keyof R, string>]: ScheduleOptions & { kind: K; input: inferJobInput<R[K]> };
}[Extract<keyof R, string>];

const options = {
  cron: z.string().min(9).max(120),
  timezone: z.string().min(1).max(64).optional(),
  name: z.string().min(1).max(100).optional(),
  missed: z.enum(MISSED_TICK_POLICIES).optional(),
  catchUpLimit: z.number().int().min(1).max(MAX_CATCH_UP).optional(),
  paused: z.boolean().optional(),
};

export function createScheduleSchema<R extends JobRegistry>(
  registry: R,
): z.ZodType<CreateScheduleInput<R>> {
  const members = Object.values(registry).map((def) =>
    z.object({ kind: z.literal(def.kind), input: def.input as z.ZodType, ...options }).strict(),
  );
  const [first, ...rest] = members;
  if (!first) throw new Error('createScheduleSchema: the registry has no job kinds');
  return z.discriminatedUnion('kind', [first, ...rest]) as unknown as z.ZodType<
    CreateScheduleInput<R>
  >;
}

export const ScheduleView = z.object({
  id: z.string(),
  name: z.string().nullable(),
  kind: z.string(),
  input: z.unknown(),
  cron: z.string(),
  timezone: z.string(),
  missed: z.enum(MISSED_TICK_POLICIES),
  catchUpLimit: z.number().int(),
  paused: z.boolean(),
  /** The next tick (UTC ISO); null when paused or the expression has no future tick. */
  nextFireAt: z.string().nullable(),
  lastFireAt: z.string().nullable(),
  /** Jobs fired so far. */
  fired: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ScheduleView = z.infer<typeof ScheduleView>;

export const ScheduleListInput = z
  .object({
    cursor: z.string().max(40).nullish(),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
export const ScheduleListResult = z.object({
  items: z.array(ScheduleView),
  nextCursor: z.string().nullable(),
});
export type ScheduleListResult = z.infer<typeof ScheduleListResult>;
export const ScheduleDeleteResult = z.object({ id: z.string(), deleted: z.boolean() });
