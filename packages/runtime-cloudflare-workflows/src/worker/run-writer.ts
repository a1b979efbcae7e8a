// The writes of one running Workflow attempt, in order: one at a time (each moves the fence the
// next one needs; units run concurrently), what a step queued landing before the step counts as
// done, and the terminal outcome. A refused write means the row moved on: the store is read once
// more to tell a cancel (the job's end: the run stores nothing more) from a takeover.

import type { MessagePointer } from '@sluice/contracts';
import {
  abortAttempt,
  type Attempt,
  type FinishWrite,
  finishWriteOf,
  type Outcome,
  type WriteContext,
} from '@sluice/worker/platform';
import { pointerFields, type DeadLetterMessage } from './dead-letter.js';
import type { RunJobStore } from './job-store.js';
import type { QueueLike } from '../platform.js';
import { writeOrFence } from './write-attempt.js';

export interface RunWriter {
  /** A write was refused: settles once the attempt knows why (cancelled, or lease lost). */
  lost(): Promise<void>;
  /** Writes what the attempt queued (and, with `finish`, its end). Throws when fenced. */
  persist(finish?: FinishWrite): Promise<void>;
  /** Stores the job's end; answers the state stored (or why nothing was). */
  storeTerminal(outcome: Outcome): Promise<string>;
  /** The terminal state this run stored, once it has. */
  readonly terminal: string | undefined;
}

export function createRunWriter(deps: {
  store: RunJobStore;
  attempt: Attempt;
  pointer: MessagePointer;
  context: () => WriteContext;
  deadLetters?: QueueLike<DeadLetterMessage> | undefined;
}): RunWriter {
  const { store, attempt, pointer } = deps;
  let terminal: string | undefined;
  const lost = (): Promise<void> => {
    if (attempt.fenced) return attempt.fenceSettled ?? Promise.resolve();
    attempt.fenced = true;
    attempt.fenceSettled = store.snapshot(pointer).then(
      (row) => abortAttempt(attempt, row?.state === 'cancelled' ? 'cancelled' : 'lease_lost'),
      () => abortAttempt(attempt, 'lease_lost'),
    );
    return attempt.fenceSettled;
  };
  let chain: Promise<void> = Promise.resolve();
  const persist = (finish?: FinishWrite): Promise<void> => {
    const next = chain.then(async () => {
      if (!finish && attempt.pending.events.length === 0 && attempt.pending.units.length === 0)
        return;
      try {
        await writeOrFence(store, attempt, deps.context(), finish);
      } catch (error) {
        await lost();
        throw error;
      }
    });
    chain = next.catch(() => {});
    return next;
  };
  const storeTerminal = async (outcome: Outcome): Promise<string> => {
    if (outcome.kind === 'none' || outcome.kind === 'ack_only' || outcome.kind === 'suspended')
      return outcome.kind;
    const finish = finishWriteOf(outcome, Date.now(), false);
    try {
      await persist(finish);
    } catch {
      return 'lease_lost';
    }
    terminal = finish.to;
    abortAttempt(attempt, 'lease_lost'); // the job has ended: siblings stop, write nothing
    if (outcome.kind === 'dead_letter') {
      await deps.deadLetters?.send({
        ...pointerFields(pointer),
        reason: outcome.reason,
        detail: outcome.detail ?? outcome.error.message,
      });
    }
    return finish.to;
  };
  return {
    lost,
    persist,
    storeTerminal,
    get terminal() {
      return terminal;
    },
  };
}
