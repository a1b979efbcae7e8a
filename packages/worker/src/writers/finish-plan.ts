// From an attempt's outcome to what is stored (pure): the transition it writes, and — once the
// write is known to have applied or been refused — what the transport is told. Runtimes whose
// queue is the job table (`acksWithOutcome`) are told nothing: the stored outcome finished the
// delivery. Everything else is told only after the commit: ack, release after the retry's delay
// (a transport outside the database: with the outbox row written in the same statement), or the dead-letter stream.

import { TRANSITIONS, type Delivery, type JobState } from '@sluice/contracts';
import { isoIn } from '@sluice/storage/d1';
import type { Outcome } from '../attempt/decide-outcome.js';
import type { FinishWrite, StoredOutcome } from './build-write.js';

export interface SettledJob {
  jobId: string;
  outcome: Outcome['kind'];
  /** The state stored by this worker, when it stored one. */
  state: JobState | undefined;
}

/** Below this lead a retry's due time counts as an accept's (the reconciler's grace, outbox.ts). */
const MIN_OUTBOX_LEAD_MS = 50;

export function finishWriteOf(o: StoredOutcome, now: number, outbox: boolean): FinishWrite {
  const to = TRANSITIONS[o.kind].to as JobState;
  const base = { outcome: o, to };
  switch (o.kind) {
    case 'succeed':
      return { ...base, output: o.output, error: null };
    case 'fail':
      return { ...base, error: o.error };
    case 'review':
      return {
        ...base,
        error: o.error,
        reason: o.reason,
        unitKey: o.unitKey,
        provider: o.provider,
      };
    case 'retry': {
      const delay = Math.max(0, o.delayMs);
      return {
        ...base,
        // A limit hold is no failure: the job's last error stays what it was.
        ...(o.refund ? {} : { error: o.error }),
        runAfter: delay > 0 ? isoIn(delay, now) : null,
        ...(o.reason ? { reason: o.reason } : {}),
        ...(o.refund ? { refund: true, waiting: o.waiting } : {}),
        ...(outbox && delay > 0
          ? { outboxDueAt: isoIn(Math.max(delay, MIN_OUTBOX_LEAD_MS), now) }
          : {}),
      };
    }
    case 'dead_letter':
      return { ...base, error: o.error, reason: o.reason, detail: o.detail };
    case 'stale':
      return { ...base, error: o.error, reason: o.reason };
  }
}

export interface TransportPlan<D extends Delivery> {
  acks: D[];
  releases: Map<number, D[]>;
  deadLetters: { delivery: D; reason: string }[];
}

export function emptyPlan<D extends Delivery>(): TransportPlan<D> {
  return { acks: [], releases: new Map(), deadLetters: [] };
}

/**
 * What the transport is told about one stored outcome. `applied: false` means the write was
 * refused: `row` is where the job is now (undefined: gone); a finished or vanished job needs
 * only an ack, one that another attempt holds is that attempt's to finish.
 */
export function planDelivery<D extends Delivery>(
  plan: TransportPlan<D>,
  delivery: D,
  outcome: StoredOutcome,
  applied: boolean,
  row: { state: JobState } | undefined,
  terminal: (state: JobState) => boolean,
): void {
  if (!applied) {
    if (!row || terminal(row.state)) plan.acks.push(delivery);
    return;
  }
  switch (outcome.kind) {
    case 'retry': {
      const ms = Math.max(0, outcome.delayMs);
      plan.releases.set(ms, [...(plan.releases.get(ms) ?? []), delivery]);
      return;
    }
    case 'dead_letter':
      plan.deadLetters.push({ delivery, reason: outcome.reason });
      return;
    case 'succeed':
    case 'fail':
    case 'review':
    case 'stale':
      plan.acks.push(delivery);
  }
}
