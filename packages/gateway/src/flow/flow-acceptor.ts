// The accept path of a flow-controlled submit (debounce, singleton, batch): ONE transaction per
// submit that first takes its key's lock (`lockFlowKey`), then decides (decide-flow.ts) and
// writes. Two gateways submitting under one key therefore decide one after the other, each
// seeing what the other committed: a burst folds into one job, a singleton key never gets two
// live jobs, a batch input lands in exactly one batch. Writes to a key's waiting job are
// compare-and-set on `scheduled`; when the due-job scheduler moved it first, the submit decides
// again as if the key had no open job.
//
// Not group-committed like plain accepts: each submit of a key waits for the one before it
// anyway, and a batch transaction holding many keys' locks would serialise unrelated keys.

import { SluiceError, type FlowAnswer, type FlowPlan } from '@sluice/contracts';
import {
  appendToBatch,
  cancelDescendants,
  dropWaiting,
  findByIdempotencyKey,
  foldIntoScheduled,
  holdForKey,
  lockFlowKey,
  setFlowKey,
  transitionJob,
  waitingForKey,
  type Db,
  type FlowKeyRef,
  type FlowKeySlot,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage/portable';
import {
  duplicateOf,
  writeBatch,
  type AcceptAnswer,
  type AcceptItem,
} from '../accept/accept-write.js';
import type { DispatchPath } from '../dispatch/dispatch.js';
import type { GatewayCrashPoint } from '../hooks.js';
import { decideFlow, type FlowDecision } from './decide-flow.js';

/** The decision function (a test swaps in a known-dangerous one to prove the tests catch it). */
export type DecideFlow = typeof decideFlow;

export interface FlowAcceptorDeps {
  database: SluiceDatabase;
  dispatch: DispatchPath;
  decide?: DecideFlow | undefined;
  /** The gateway's crash points (hooks.ts; production: none). */
  at?: ((point: GatewayCrashPoint) => void) | undefined;
}

/** An accept answer with what else the flow did: cancelled jobs, a due time to wake for. */
export type FlowAcceptAnswer = AcceptAnswer & { dueAt?: number | undefined };

export function createFlowAcceptor(deps: FlowAcceptorDeps) {
  const decide = deps.decide ?? decideFlow;

  async function answerWith(
    tx: Db,
    item: AcceptItem,
    start: 'queued' | 'scheduled' | 'held',
    dueAt: number | undefined,
    now: number,
  ): Promise<AcceptAnswer> {
    const job: AcceptItem['job'] = {
      ...item.job,
      outcome:
        !item.route.ok || start === 'queued'
          ? item.job.outcome
          : { to: 'scheduled', runAt: new Date(dueAt ?? now).toISOString() },
    };
    const [answer] = await writeBatch(tx, [{ ...item, job }], deps.dispatch);
    return answer as AcceptAnswer;
  }

  async function run(
    tx: Db,
    plan: FlowPlan,
    item: AcceptItem,
    now: number,
  ): Promise<FlowAcceptAnswer> {
    const { job } = item;
    const ref: FlowKeyRef = {
      tenantId: job.tenantId,
      kind: job.kind,
      flow: plan.flow,
      key: plan.key,
    };
    const slot = await lockFlowKey(tx, ref, now);
    // A singleton submit repeated with its idempotency key answers its job, whatever the key's state.
    if (plan.flow === 'singleton' && job.idempotencyKey !== null) {
      const stored = await findByIdempotencyKey(tx, job.tenantId, job.idempotencyKey);
      if (stored) return duplicateOf(stored, job);
    }
    // Only `cancel-older` needs every held job; the others ask whether one is held, and which first.
    const held =
      plan.flow === 'singleton'
        ? (
            await waitingForKey(tx, ref, {
              stillHeld: true,
              ...(plan.mode === 'cancel-older' ? {} : { limit: 1 }),
            })
          ).map((w) => w.jobId)
        : [];
    let decision: FlowDecision = decide(plan, slot, now, { held });
    const events: StoredEvent[] = [];

    if (decision.action === 'fold-trailing') {
      const folded = await foldIntoScheduled(
        tx,
        slot.jobId as string,
        { input: job.input, inputHash: job.inputHash, runAfter: decision.dueAt },
        now,
      );
      if (folded) return flowAnswer(slot, { debounced: true }, decision.dueAt);
      decision = decide(plan, closed(slot), now);
    }
    if (decision.action === 'fold-leading') {
      await setFlowKey(tx, ref, { ...window(slot), closesAt: decision.closesAt }, now);
      return flowAnswer(slot, { debounced: true });
    }
    if (decision.action === 'skip') {
      const answered = decision.heldId
        ? { ...slot, job: { id: decision.heldId, state: 'scheduled' as const, runAfter: null } }
        : slot;
      return flowAnswer(answered, { skipped: true });
    }
    if (decision.action === 'append') {
      const index = await appendToBatch(tx, slot.jobId as string, job.input, decision.dueAt, now);
      if (index !== undefined) {
        await setFlowKey(tx, ref, { ...window(slot), size: decision.size }, now);
        return flowAnswer(slot, { batchIndex: index }, decision.dueAt);
      }
      decision = decide(plan, closed(slot), now);
    }
    if (decision.action === 'cancel-older') {
      const cancelled: string[] = [];
      for (const id of [slot.job?.id, ...held]) {
        if (id === undefined) continue;
        const r = await transitionJob(tx, { id, event: 'cancel', reason: 'SINGLETON_REPLACED' });
        if (!r.ok) continue;
        events.push(r.event);
        cancelled.push(id);
      }
      // With the cancels: their waits close, their attached children go too.
      const cascaded = await cancelDescendants(tx, job.tenantId, cancelled, now);
      events.push(...cascaded.events);
      await dropWaiting(tx, held);
      const after = await lockFlowKey(tx, ref, now);
      decision = decide(plan, after, now);
      // Still live: a parked job cannot be cancelled; the new one waits for it like `queue`.
      if (decision.action === 'cancel-older')
        decision = {
          action: 'open',
          start: 'held',
          window: { openedAt: now, closesAt: null, size: 1 },
        };
    }
    if (decision.action !== 'open') {
      // A decision made again after a fold lost its job can only open one (decide-flow.ts).
      throw new Error(`flow decision ${decision.action} after the key's job moved on`);
    }
    const dueAt = decision.start === 'scheduled' ? decision.dueAt : undefined;
    // A batch run's input is the array of its inputs.
    const opened = plan.flow === 'batch' ? { ...item, job: { ...job, input: [job.input] } } : item;
    const answer = await answerWith(tx, opened, decision.start, dueAt, now);
    if (!answer.ok || answer.result.isDuplicate) return answer;
    const id = answer.result.id;
    // (A job dead-lettered at submit — its version is not served — waits for nothing.)
    if (decision.start === 'held' && answer.result.state === 'scheduled')
      await holdForKey(tx, ref, id, now);
    // A singleton key moves to its new job only when that job runs now; a held one takes the
    // key when the due-job scheduler releases it.
    if (decision.start !== 'held') {
      await setFlowKey(tx, ref, { jobId: id, ...decision.window }, now);
    }
    return {
      ...answer,
      events: [...events, ...answer.events],
      result: { ...answer.result, ...(plan.flow === 'batch' ? { batchIndex: 0 } : {}) },
      dueAt,
    };
  }

  return {
    /** Accepts one flow-controlled submit; the answer says what happened to it. */
    async accept(plan: FlowPlan, item: AcceptItem): Promise<FlowAcceptAnswer> {
      if (!deps.database.capabilities.interactiveTransactions) {
        return {
          ok: false,
          error: new SluiceError('BAD_REQUEST', `${plan.flow} needs a database with transactions`, {
            details: { field: plan.flow },
          }),
        };
      }
      try {
        const answer = await deps.database.transaction((tx) => run(tx, plan, item, Date.now()));
        // A cancel-older committed its cancels with their cascade.
        if (
          answer.ok &&
          answer.events.some(({ event }) => event.type === 'state' && event.to === 'cancelled')
        )
          deps.at?.('after-cancel-commit');
        return answer;
      } catch (error) {
        return { ok: false, error };
      }
    },
  };
}

/** The key's slot as if its open job had moved on (the due-job scheduler took it). */
function closed(slot: FlowKeySlot): FlowKeySlot {
  return { ...slot, job: undefined, jobId: null };
}

function window(slot: FlowKeySlot) {
  return {
    jobId: slot.jobId,
    openedAt: slot.openedAt,
    closesAt: slot.closesAt,
    size: slot.size,
  };
}

/** A submit folded into (or answered by) the key's job: that job's id and state. */
function flowAnswer(slot: FlowKeySlot, flow: FlowAnswer, dueAt?: number): FlowAcceptAnswer {
  const job = slot.job as NonNullable<FlowKeySlot['job']>;
  return {
    ok: true,
    result: { id: job.id, state: job.state, isDuplicate: false, ...flow },
    events: [],
    dueAt,
  };
}
