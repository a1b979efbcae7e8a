// The task state machine: one pure transition table shared by every package. Stored transitions
// are compare-and-set on the previous state (storage), so two workers can never both move a job.
// Zod-free: the browser client uses the state lists at runtime.

import { SluiceError } from './errors.js';

export const JOB_STATES = [
  'accepted',
  'scheduled',
  'queued',
  'running',
  /** Suspended on a durable wait (event, sleep, token, children): holds no slot, lease or entry. */
  'waiting',
  'succeeded',
  'failed',
  'cancelled',
  'needs_review',
  'dead_lettered',
  'stale',
] as const;
export type JobState = (typeof JOB_STATES)[number];

/** States a job stops in for good, unless an operator requeues or reruns it (`OPERATOR_EVENTS`). */
export const FINAL_STATES = ['succeeded', 'failed', 'cancelled', 'stale'] as const;
/** Terminal-looking states that only a person moves on (approve/discard, requeue). */
export const PARKED_STATES = ['needs_review', 'dead_lettered'] as const;
/** Where a job stops by itself: a watcher or `result()` settles here. */
export const TERMINAL_STATES = [...FINAL_STATES, ...PARKED_STATES] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

/**
 * Every event and the states it may leave from, with the state it leads to. The table is the
 * whole machine; `transition` only reads it.
 */
export const TRANSITIONS = {
  /** A delayed job waits (`runAt`/`delayMs` at submit) until the due-job scheduler dispatches it. */
  schedule: { from: ['accepted'], to: 'scheduled' },
  dispatch: { from: ['accepted'], to: 'queued' },
  /** A scheduled job whose time came: queued like a fresh one (its own event, one source state). */
  due: { from: ['scheduled'], to: 'queued' },
  start: { from: ['queued'], to: 'running' },
  /** Another attempt takes over a running job whose lease or claim expired. */
  reclaim: { from: ['running'], to: 'running' },
  succeed: { from: ['running'], to: 'succeeded' },
  fail: { from: ['running'], to: 'failed' },
  /** A failed attempt that may run again (backoff), or work given back on drain. */
  retry: { from: ['running'], to: 'queued' },
  /**
   * The attempt ends on a durable wait (`ctx.waitForEvent`, `ctx.sleep`, a token, children): its
   * budget is refunded and it holds nothing until the wait is resolved.
   */
  suspend: { from: ['running'], to: 'waiting' },
  /** The wait was resolved (signal, timeout, token, children): queued like a retry, run from the top. */
  resume: { from: ['waiting'], to: 'queued' },
  cancel: { from: ['accepted', 'scheduled', 'queued', 'running', 'waiting'], to: 'cancelled' },
  review: { from: ['running'], to: 'needs_review' },
  approve: { from: ['needs_review'], to: 'queued' },
  discard: { from: ['needs_review'], to: 'failed' },
  dead_letter: { from: ['accepted', 'scheduled', 'queued', 'running'], to: 'dead_lettered' },
  /** An operator's retry with a fresh attempt budget: dead-lettered, or failed for good. */
  requeue: { from: ['dead_lettered', 'failed'], to: 'queued' },
  /**
   * An operator's run again of a job that ended: a new epoch, the checkpoints it keeps reused
   * and the provider-call ledger untouched (a billed call is answered from it, never resent).
   */
  rerun: { from: ['succeeded', 'failed', 'dead_lettered'], to: 'queued' },
  stale: { from: ['accepted', 'scheduled', 'queued', 'running'], to: 'stale' },
} as const satisfies Record<string, { from: readonly JobState[]; to: JobState }>;

export type JobTransition = keyof typeof TRANSITIONS;
/** The only events that leave a final state: a person's decision, never a worker's. */
export const OPERATOR_EVENTS = ['requeue', 'rerun'] as const satisfies readonly JobTransition[];
export const JOB_TRANSITIONS = Object.keys(TRANSITIONS) as JobTransition[];

export type TransitionResult =
  | { ok: true; state: JobState }
  | { ok: false; error: SluiceError & { code: 'ILLEGAL_TRANSITION' } };

/** The next state, or a typed `ILLEGAL_TRANSITION` error. Never throws. */
export function transition(state: JobState, event: JobTransition): TransitionResult {
  const rule = TRANSITIONS[event] as { from: readonly JobState[]; to: JobState } | undefined;
  if (rule !== undefined && rule.from.includes(state)) return { ok: true, state: rule.to };
  const error = new SluiceError('ILLEGAL_TRANSITION', `cannot ${event} a job that is ${state}`, {
    details: { state, event },
  }) as SluiceError & { code: 'ILLEGAL_TRANSITION' };
  return { ok: false, error };
}

/** `transition`, throwing the `ILLEGAL_TRANSITION` error instead of returning it. */
export function assertTransition(state: JobState, event: JobTransition): JobState {
  const result = transition(state, event);
  if (!result.ok) throw result.error;
  return result.state;
}

/** The states an event may leave from (for compare-and-set `WHERE state IN (...)`). */
export function sourceStates(event: JobTransition): readonly JobState[] {
  return TRANSITIONS[event].from;
}

export function isJobState(value: unknown): value is JobState {
  return typeof value === 'string' && (JOB_STATES as readonly string[]).includes(value);
}

export function isFinalState(state: JobState): boolean {
  return (FINAL_STATES as readonly JobState[]).includes(state);
}

export function isTerminalState(state: JobState): state is TerminalState {
  return (TERMINAL_STATES as readonly JobState[]).includes(state);
}
