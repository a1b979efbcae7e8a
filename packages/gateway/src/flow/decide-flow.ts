// What one flow-controlled submit does with its key, decided from the key as its lock found it.
// Pure and exhaustive: the executor (flow-acceptor.ts) only carries the decision out.
//
// - debounce, trailing: while the key's job still waits (`scheduled`), the submit folds into it:
//   the job takes this input and is due `delayMs` from now, but never later than `maxDelayMs`
//   after the window opened. Otherwise a new window opens: a job due `delayMs` from now.
// - debounce, leading: the first submit runs at once and opens a window of `delayMs` quiet
//   (at most `maxDelayMs` long); submits inside it fold into that job and extend the quiet.
// - singleton: a key is live while its current job has not reached a final state (a parked
//   job — needs review, dead-lettered — can run again, so it keeps its key). `skip` answers the
//   live job; `queue` holds the new one (behind any already held) until the key frees;
//   `cancel-older` cancels the live and held jobs, then queues the new one (held instead when the
//   live job cannot be cancelled).
// - batch: while the key's batch job still waits and has room, the input is appended (a batch
//   that fills up is due now); otherwise a new batch opens, due `maxWaitMs` from now.

import { isFinalState, type FlowPlan } from '@sluice/contracts';
import type { FlowKeySlot } from '@sluice/storage/portable';

/** The key's window after an `open`: what `flow_keys` records. */
export interface FlowWindow {
  openedAt: number;
  closesAt: number | null;
  size: number;
}

export type FlowDecision =
  | { action: 'open'; start: 'queued'; window: FlowWindow }
  | { action: 'open'; start: 'scheduled'; dueAt: number; window: FlowWindow }
  | { action: 'open'; start: 'held'; window: FlowWindow }
  | { action: 'fold-trailing'; dueAt: number }
  | { action: 'fold-leading'; closesAt: number }
  /** Answer the live job, or (`heldId`) the oldest held one. */
  | { action: 'skip'; heldId?: string | undefined }
  | { action: 'append'; dueAt: number | undefined; size: number }
  | { action: 'cancel-older' };

/** Facts the executor adds for a singleton key. */
export interface SingletonFacts {
  /**
   * Jobs of the key held in `queue` mode and still waiting, oldest first (for `skip` and `queue`
   * the oldest alone is enough).
   */
  held: readonly string[];
}

export function isLiveSingleton(slot: FlowKeySlot): boolean {
  return slot.job !== undefined && !isFinalState(slot.job.state);
}

export function decideFlow(
  plan: FlowPlan,
  slot: FlowKeySlot,
  now: number,
  facts: SingletonFacts = { held: [] },
): FlowDecision {
  const waiting = slot.job?.state === 'scheduled';
  switch (plan.flow) {
    case 'debounce': {
      if (plan.mode === 'trailing') {
        if (waiting && slot.openedAt !== null) {
          return {
            action: 'fold-trailing',
            dueAt: Math.min(now + plan.delayMs, slot.openedAt + plan.maxDelayMs),
          };
        }
        return {
          action: 'open',
          start: 'scheduled',
          dueAt: now + plan.delayMs,
          window: { openedAt: now, closesAt: null, size: 1 },
        };
      }
      if (slot.job && slot.closesAt !== null && slot.openedAt !== null && now < slot.closesAt) {
        return {
          action: 'fold-leading',
          closesAt: Math.min(now + plan.delayMs, slot.openedAt + plan.maxDelayMs),
        };
      }
      return {
        action: 'open',
        start: 'queued',
        window: { openedAt: now, closesAt: now + plan.delayMs, size: 1 },
      };
    }
    case 'singleton': {
      const live = isLiveSingleton(slot);
      // Held jobs count as taken: the next release runs the oldest of them.
      const taken = live || facts.held.length > 0;
      const window = { openedAt: now, closesAt: null, size: 1 };
      switch (plan.mode) {
        case 'skip':
          if (live) return { action: 'skip' };
          return taken
            ? { action: 'skip', heldId: facts.held[0] }
            : { action: 'open', start: 'queued', window };
        case 'queue':
          return taken
            ? { action: 'open', start: 'held', window }
            : { action: 'open', start: 'queued', window };
        case 'cancel-older':
          return taken ? { action: 'cancel-older' } : { action: 'open', start: 'queued', window };
      }
      break;
    }
    case 'batch': {
      if (waiting && slot.size < plan.maxSize) {
        const size = slot.size + 1;
        return { action: 'append', dueAt: size >= plan.maxSize ? now : undefined, size };
      }
      return {
        action: 'open',
        start: 'scheduled',
        dueAt: plan.maxSize <= 1 ? now : now + plan.maxWaitMs,
        window: { openedAt: now, closesAt: null, size: 1 },
      };
    }
  }
  // Unreachable: every flow and mode returned above (typescript-eslint checks the switches).
  throw new Error(`no flow decision for ${JSON.stringify(plan)}`);
}
