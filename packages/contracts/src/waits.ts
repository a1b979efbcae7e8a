// Durable waits: a job suspends on an event (a signal sent to it), a sleep, an approval token or
// its child jobs, holding no slot, lease or stream entry while it waits (state `waiting`), and
// runs again from the top once the wait is resolved; the wait's value is a checkpoint, so the
// replay returns it at once. These are the wire shapes the gateway, the client and the worker
// share; the mechanism is storage `waits` and the worker's `ctx.waitForEvent`/`sleep`/`children`.

import { z } from 'zod';
import { JobErrorSchema } from './events.js';
import { JOB_ID_PATTERN, MAX_JOB_ID_LENGTH } from './job-id.js';
import { JOB_STATES } from './state-machine.js';

export const WAIT_KINDS = ['event', 'sleep', 'children'] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

/** `cancelled`: its job was cancelled while it waited (the sweep never looks at it again). */
export const WAIT_STATUSES = ['open', 'resolved', 'timed_out', 'cancelled'] as const;
export type WaitStatus = (typeof WAIT_STATUSES)[number];

/** Event names: short identifiers (they appear in reasons such as `event:approved`). */
export const EVENT_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export function isEventName(value: unknown): value is string {
  return typeof value === 'string' && EVENT_NAME_PATTERN.test(value);
}

/** The `reason` a waiting job shows: `event:<name>`, `sleep` or `children`. */
export function waitReason(kind: WaitKind, event?: string): string {
  return kind === 'event' ? `event:${event ?? ''}` : kind;
}

/** A wait with `timeoutMs` resolves to this union; the caller reads `timedOut` first. */
export type WaitResult<T> =
  { readonly timedOut: false; readonly payload: T } | { readonly timedOut: true };

/** Longest wait or sleep: a year (a due time further out is almost surely a unit mistake). */
export const MAX_WAIT_MS = 366 * 24 * 3600 * 1000;

const JobId = z.string().max(MAX_JOB_ID_LENGTH).regex(JOB_ID_PATTERN, 'not a job id');
const EventName = z.string().regex(EVENT_NAME_PATTERN, 'not an event name');

/**
 * `jobs.signal`: deliver an event to a job. The payload is checked against the kind's
 * `events[name]` schema. `signalId` makes a retried send idempotent (the same id is stored once).
 */
export const SignalInput = z
  .object({
    id: JobId,
    name: EventName,
    payload: z.unknown(),
    signalId: z.string().min(1).max(200).optional(),
  })
  .strict();
export type SignalInput = z.infer<typeof SignalInput>;

export const SignalResult = z.object({
  id: z.string(),
  name: z.string(),
  signalId: z.string(),
  /** The same `signalId` was stored before: nothing new was stored. */
  isDuplicate: z.boolean(),
  /** The signal resolved a wait right away (else it is kept for the job's next wait). */
  delivered: z.boolean(),
});
export type SignalResult = z.infer<typeof SignalResult>;

// ---- approval tokens --------------------------------------------------------------------------

/** 32 random bytes, base64url: the token is the authority, so it is long and opaque. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const TOKEN_STATUSES = ['open', 'used', 'expired', 'cancelled'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

/** Longest token lifetime (30 days): a token is a bearer credential. */
export const MAX_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

export const TokenView = z.object({
  status: z.enum(TOKEN_STATUSES),
  /** The event a completion sends to the job. */
  event: z.string(),
  expiresAt: z.string(),
  usedAt: z.string().nullable(),
});
export type TokenView = z.infer<typeof TokenView>;

export const TokenCompleteInput = z.object({ payload: z.unknown() }).strict();
export const TokenCompleteResult = z.object({ status: z.literal('used'), delivered: z.boolean() });
export type TokenCompleteResult = z.infer<typeof TokenCompleteResult>;

// ---- child jobs -------------------------------------------------------------------------------

/** How a child ended, as its parent sees it (`ctx.children.wait`). */
export const ChildOutcome = z.object({
  id: z.string(),
  kind: z.string(),
  state: z.enum(JOB_STATES),
  ok: z.boolean(),
  output: z.unknown().optional(),
  error: JobErrorSchema.nullable().optional(),
});
export type ChildOutcome = z.infer<typeof ChildOutcome>;

export const ChildrenInput = z.object({ id: JobId }).strict();
export const ChildView = z.object({
  id: z.string(),
  kind: z.string(),
  state: z.enum(JOB_STATES),
  detached: z.boolean(),
  createdAt: z.string(),
});
export type ChildView = z.infer<typeof ChildView>;
export const ChildrenResult = z.object({ items: z.array(ChildView) });
