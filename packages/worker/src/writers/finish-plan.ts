// What finishing a terminal batch asks of the transport, decided from what the terminal
// transaction stored (pure): which deliveries are acknowledged, released after a delay or
// dead-lettered, and which jobs settled. Used inside the transaction by runtimes that acknowledge
// there (`acksInTransaction`) and after the commit for everything else.

import { isTerminalState, type Delivery, type JobState } from '@sluice/contracts';
import type { JobRow } from '@sluice/storage';
import type { Attempt } from '../attempt/attempt.js';
import type { Outcome } from '../attempt/decide-outcome.js';

export interface SettledJob {
  jobId: string;
  outcome: Outcome['kind'];
  /** The state stored by this worker, when it stored one. */
  state: JobState | undefined;
}

export type Written = { ok: boolean; job: JobRow | undefined };

export interface FinishPlan<D extends Delivery> {
  acks: D[];
  releases: Map<number, D[]>;
  deadLetters: D[];
  settled: SettledJob[];
}

export function planFinish<D extends Delivery>(
  batch: readonly { attempt: Attempt<D>; outcome: Outcome }[],
  written: ReadonlyMap<unknown, Written>,
): FinishPlan<D> {
  const plan: FinishPlan<D> = { acks: [], releases: new Map(), deadLetters: [], settled: [] };
  for (const item of batch) {
    const { delivery, job } = item.attempt;
    const { outcome } = item;
    const w = written.get(item);
    if (outcome.kind === 'ack_only') {
      plan.acks.push(delivery);
      plan.settled.push({ jobId: job.id, outcome: outcome.kind, state: undefined });
      continue;
    }
    if (outcome.kind === 'none' || w === undefined) continue;
    if (!w.ok) {
      // The compare-and-set did not apply. A finished or vanished job needs only an ack; one
      // that another attempt holds is that attempt's to finish.
      if (!w.job || isTerminalState(w.job.state)) plan.acks.push(delivery);
      continue;
    }
    plan.settled.push({ jobId: job.id, outcome: outcome.kind, state: w.job?.state });
    switch (outcome.kind) {
      case 'retry':
        plan.releases.set(outcome.delayMs, [
          ...(plan.releases.get(outcome.delayMs) ?? []),
          delivery,
        ]);
        break;
      case 'dead_letter':
        plan.deadLetters.push(delivery);
        break;
      case 'succeed':
      case 'fail':
      case 'review':
      case 'stale':
        plan.acks.push(delivery);
        break;
    }
  }
  return plan;
}
