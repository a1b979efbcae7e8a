// What one attempt writes next, as a storage `AttemptWrite` (pure). Everything pending goes in
// one write: the start (if the row is not `running` at this attempt's epoch yet) with the
// `running` event first, then the queued progress and unit events in order, the checkpoints, and
// — when it finishes — the transition out of `running` and its event last. The fence is where
// the row stood after the attempt's previous write, so the sequence numbers are known here.

import {
  isFinalState,
  type JobError,
  type JobEvent,
  type JobState,
  type JobWaiting,
} from '@sluice/contracts';
import { isoIn, isoNow, transitionEvent, type AttemptWrite } from '@sluice/storage/d1';
import type { Attempt } from '../attempt/attempt.js';
import type { Outcome } from '../attempt/decide-outcome.js';

/** Outcomes that store something. */
export type StoredOutcome = Exclude<
  Outcome,
  { kind: 'ack_only' } | { kind: 'none' } | { kind: 'suspended' }
>;

/** The end of an attempt, as stored. */
export interface FinishWrite {
  /** The outcome it stores (what the transport is told once it applied). */
  outcome: StoredOutcome;
  to: JobState;
  output?: unknown;
  error?: JobError | null | undefined;
  reason?: string | undefined;
  /** Put on the transition event (a dead letter's detail). */
  detail?: string | undefined;
  runAfter?: string | null | undefined;
  /** A delayed retry brought back by the reconciler (runtimes with an outbox). */
  outboxDueAt?: string | undefined;
  unitKey?: string | undefined;
  provider?: string | undefined;
  /** A limit hold: store `attempts - 1` (the attempt never counts) and what the job waits on. */
  refund?: boolean | undefined;
  waiting?: JobWaiting | undefined;
}

export interface WriteContext {
  now: number;
  leaseMs: number;
  /** `now` and `now + leaseMs` as ISO text, when the caller formatted them once for a flush. */
  at?: string | undefined;
  leaseUntil?: string | undefined;
  /** The worker id written as the lease owner while the job runs. */
  owner: string;
}

/** A write and how much of the attempt's pending events and units it carries. */
export interface BuiltWrite {
  write: AttemptWrite;
  taken: { events: number; units: number };
}

export function buildWrite(attempt: Attempt, ctx: WriteContext, finish?: FinishWrite): BuiltWrite {
  const { job } = attempt;
  const at = ctx.at ?? isoNow(ctx.now);
  const events: JobEvent[] = [];
  let seq = attempt.fence.lastSeq;
  // A limit hold of an attempt that wrote nothing yet ran nothing: no `running`/`queued` pair in
  // the job's history (a job held a thousand times would otherwise log two thousand events).
  const silent =
    finish?.refund === true && !attempt.runningEventStored && attempt.pending.events.length === 0;
  if (!attempt.runningEventStored && !silent) {
    // A run that slept until the due time itself (`delaysInRun`) starts a `scheduled` job: its
    // history says `due` then `start`, as on a runtime whose scheduler queued it first.
    if (attempt.startFrom === 'scheduled') {
      const dueAt = attempt.startedAt || at;
      events.push(
        transitionEvent(job.id, ++seq, dueAt, 'scheduled', 'queued', job.attempts - 1, {}),
      );
    }
    const running = transitionEvent(
      job.id,
      ++seq,
      attempt.startedAt || at,
      attempt.startFrom === 'scheduled' ? 'queued' : attempt.startFrom,
      'running',
      job.attempts,
      {},
    );
    // Who ran the attempt and under which fence: the operator's attempt list reads them here.
    if (running.type === 'state') {
      running.worker = ctx.owner;
      running.epoch = job.epoch;
    }
    events.push(running);
  }
  for (const e of attempt.pending.events)
    events.push({ ...e, jobId: job.id, seq: ++seq } as JobEvent);
  if (finish && !silent) {
    events.push(
      transitionEvent(job.id, seq + 1, at, 'running', finish.to, job.attempts, {
        error: finish.error ?? undefined,
        reason: finish.reason,
        detail: finish.detail,
        unitKey: finish.unitKey,
        provider: finish.provider,
      }),
    );
  }
  const to = finish?.to ?? 'running';
  // Checkpoints matter only to a later attempt: a job that ends for good drops them. A failed
  // job keeps them: an operator's requeue or rerun is that later attempt.
  const units =
    finish && finish.to !== 'failed' && isFinalState(finish.to) ? [] : attempt.pending.units;
  const write: AttemptWrite = {
    id: job.id,
    tenantId: job.tenantId,
    kind: job.kind,
    fence: attempt.fence,
    state: to,
    epoch: job.epoch,
    attempts: finish?.refund ? job.attempts - 1 : job.attempts,
    attemptId: job.attemptId,
    // Every write while running is proof of life: it extends the lease.
    leaseUntil: finish ? null : (ctx.leaseUntil ?? isoIn(ctx.leaseMs, ctx.now)),
    leaseOwner: finish ? null : ctx.owner,
    waiting: finish?.waiting ?? null,
    events,
    units,
  };
  // Optional fields only when set (assigned, not spread: this runs for every job).
  if (finish) {
    if (finish.output !== undefined) write.output = finish.output;
    if (finish.error !== undefined) write.error = finish.error;
    if (finish.reason !== undefined) write.reason = finish.reason;
    if (finish.runAfter !== undefined) write.runAfter = finish.runAfter;
    if (finish.outboxDueAt) write.outboxDueAt = finish.outboxDueAt;
  }
  return {
    write,
    taken: { events: attempt.pending.events.length, units: attempt.pending.units.length },
  };
}

/** The attempt after its write applied: the fence moves, what was written is no longer pending. */
export function applyWritten(attempt: Attempt, built: BuiltWrite): void {
  const { write, taken } = built;
  attempt.fence = {
    epoch: write.epoch,
    lastSeq: write.fence.lastSeq + write.events.length,
    state: 'running',
  };
  attempt.started = true;
  attempt.runningEventStored = true;
  attempt.pending.events.splice(0, taken.events);
  attempt.pending.units.splice(0, taken.units);
}
