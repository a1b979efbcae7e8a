// The input of `jobs.submit`, as one discriminated union over the registry: a wrong kind, wrong
// input, missing or extra field fails to validate (and, through the client's types, to compile).

import { z } from 'zod';
import { PRIORITY_MAX, PRIORITY_MIN, type JobRegistry, type inferJobInput } from './define-job.js';
import { SluiceError } from './errors.js';
import { BatchOptions, DebounceOptions, SingletonOptions } from './flow-control.js';
import { Metadata, Tags } from './job-labels.js';

export const IdempotencyKey = z.string().min(1).max(200);
export const FileId = z.string().regex(/^f_[a-z2-7]{26}$/, 'not a file id');
export const FileIds = z.array(FileId).max(100);

/** How far ahead a job may be scheduled: a year (a longer wait is a calendar's job, not a queue's). */
export const MAX_DELAY_MS = 365 * 24 * 60 * 60 * 1000;
/** When a delayed job becomes due: an absolute instant (ISO 8601 with offset) or a delay. */
export const RunAt = z.iso.datetime({ offset: true });
export const DelayMs = z.number().int().min(0).max(MAX_DELAY_MS);
export const Priority = z.number().int().min(PRIORITY_MIN).max(PRIORITY_MAX);

export type SubmitInput<R extends JobRegistry> = {
  [K in Extract<keyof R, string>]: {
    kind: K;
    input: inferJobInput<R[K]>;
    idempotencyKey?: string | undefined;
    fileIds?: string[] | undefined;
    /** Not before this instant (ISO 8601 with offset); at most `MAX_DELAY_MS` ahead. */
    runAt?: string | undefined;
    /** Not before this many ms from acceptance. Exclusive with `runAt`. */
    delayMs?: number | undefined;
    /** Overrides the kind's default priority (higher runs first). */
    priority?: number | undefined;
    /** A legal hold from the start: retention never removes the job while it is set. */
    hold?: boolean | undefined;
    /** Fold submits close together into one job (over the kind's declared `debounce`). */
    debounce?: DebounceOptions | undefined;
    /** At most one live job per key (over the kind's declared `singleton`). */
    singleton?: SingletonOptions | undefined;
    /** Overrides the batch kind's declared `key`, `maxSize` or `maxWaitMs`. */
    batch?: BatchOptions | undefined;
    /** Labels to find the job by (`jobs.search`): at most 20, each up to 64 characters. */
    tags?: string[] | undefined;
    /** JSON values by key (at most 32 keys, 4 KiB as JSON), searchable by key and value. */
    metadata?: Record<string, unknown> | undefined;
  };
}[Extract<keyof R, string>];

function member(kind: string, input: z.core.$ZodType) {
  return z
    .object({
      kind: z.literal(kind),
      input: input as z.ZodType,
      idempotencyKey: IdempotencyKey.optional(),
      fileIds: FileIds.optional(),
      runAt: RunAt.optional(),
      delayMs: DelayMs.optional(),
      priority: Priority.optional(),
      hold: z.boolean().optional(),
      debounce: DebounceOptions.optional(),
      singleton: SingletonOptions.optional(),
      batch: BatchOptions.optional(),
      tags: Tags.optional(),
      metadata: Metadata.optional(),
    })
    .strict()
    .refine((v) => v.runAt === undefined || v.delayMs === undefined, {
      message: 'give runAt or delayMs, not both',
      path: ['delayMs'],
    });
}

export function createSubmitSchema<R extends JobRegistry>(registry: R): z.ZodType<SubmitInput<R>> {
  const members = Object.values(registry).map((def) => member(def.kind, def.input));
  const [first, ...rest] = members;
  if (!first) throw new Error('createSubmitSchema: the registry has no job kinds');
  // zod 4's discriminatedUnion wants a non-empty tuple; the mapped members are one, which the
  // type of `.map()` cannot say, hence the cast.
  return z.discriminatedUnion('kind', [first, ...rest]) as unknown as z.ZodType<SubmitInput<R>>;
}

/**
 * The due time of a submit (epoch ms), or `undefined` when it runs at once. A `runAt` in the
 * past runs at once; one further ahead than `MAX_DELAY_MS` is refused.
 */
export function dueTime(
  opts: { runAt?: string | undefined; delayMs?: number | undefined },
  now: number,
): number | undefined {
  const at =
    opts.runAt !== undefined
      ? Date.parse(opts.runAt)
      : opts.delayMs !== undefined
        ? now + opts.delayMs
        : undefined;
  if (at === undefined || at <= now) return undefined;
  if (at - now > MAX_DELAY_MS) {
    throw new SluiceError('BAD_REQUEST', 'runAt is more than a year ahead', {
      details: { maxDelayMs: MAX_DELAY_MS },
    });
  }
  return at;
}
