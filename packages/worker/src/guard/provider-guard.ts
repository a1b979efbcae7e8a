// The provider guard: job code reaches paid providers only through it (`ctx.providers.call`).
// Per call: classify the declaration (contracts `classifyDeclaration`, never the provider's
// name) → refuse fail-closed before anything is sent → read the unit's ledger (reuse a stored
// answer, poll a recorded external id, or stop for review when an earlier attempt left billing in
// doubt) → write the ledger row and commit it → send (the guard owns the connection) → record
// the outcome → on failure do exactly what contracts `decideRecovery` says. Calls are allowed
// only in `execute`, inside their unit: prepare, apply and finalize run again on every retry.

import { classifyDeclaration, NeedsReviewError, NonRetriableError } from '@sluice/contracts';
import type { LedgerRow } from '@sluice/storage/d1';
import { DEFAULT_HOOKS } from '../hooks.js';
import { idempotencyKeyOfWeb, type GuardDeps } from './guard-deps.js';
import { pollExternal } from './poll-external.js';
import { describeCall, type CallIdentity } from './recovery-error.js';
import { DEFAULT_TIMEOUT_MS, refuseCall, sendCall } from './send-call.js';
import { assertSendable } from './request-shape.js';
import type {
  CallInfo,
  CallOptions,
  GuardStage,
  ProviderAnswer,
  ProviderClient,
  RequestSpec,
} from './types.js';

export interface UnitProviderClient extends ProviderClient {
  /** The unit settled: later calls through this client are refused (an untethered promise). */
  close(): void;
}

export interface ProviderGuard {
  /** The client of a stage where providers may not be called: every call is refused. */
  forStage(stage: Exclude<GuardStage, 'execute'>): ProviderClient;
  /** The client of one unit's `execute`. */
  forUnit(unitKey: string): UnitProviderClient;
}

export function createProviderGuard(deps: GuardDeps): ProviderGuard {
  const { job, signal, counters } = deps;
  const hooks = deps.hooks ?? DEFAULT_HOOKS;

  function reviewFromLedger(id: CallIdentity, row: LedgerRow): NeedsReviewError {
    return new NeedsReviewError(
      `${describeCall(id)}: an earlier attempt left it ${row.outcome}${row.externalId ? '' : ' with no external id'}; the provider may have billed it, so it is not repeated without a person's approval`,
      { details: { ...id, failure: 'ledger' } },
    );
  }

  async function call(
    unitKey: string,
    ordinals: Map<string, number>,
    name: string,
    spec: RequestSpec,
    opts: CallOptions = {},
  ): Promise<ProviderAnswer> {
    signal.throwIfAborted();
    const declaration = Object.hasOwn(deps.declarations, name)
      ? deps.declarations[name]
      : undefined;
    const n = (ordinals.get(name) ?? 0) + 1;
    ordinals.set(name, n);
    const classified = classifyDeclaration(declaration);
    const id: CallIdentity = {
      unitKey,
      callName: n === 1 ? name : `${name}#${n}`,
      provider: declaration?.provider ?? '-',
      modality: declaration?.modality ?? '-',
      callClass: classified.callClass,
    };
    await deps.beforeWrite?.(unitKey);
    if (classified.callClass === 'fail_closed') return refuseCall(deps, id, classified.reason);
    const decl = classified.declaration;
    if ((decl.call === 'async-job') !== (opts.asyncJob !== undefined)) {
      throw new NonRetriableError(
        `${describeCall(id)}: ${decl.call === 'async-job' ? 'an async-job call needs opts.asyncJob' : 'a sync call takes no opts.asyncJob'}`,
      );
    }
    const info: CallInfo = {
      jobId: job.id,
      unitKey,
      callName: id.callName,
      attemptId: job.attemptId,
      idempotencyKey: await idempotencyKeyOfWeb(job.id, unitKey, id.callName),
    };
    const request = typeof spec === 'function' ? spec(info) : spec;
    try {
      assertSendable(request);
    } catch (error) {
      throw new NonRetriableError(`${describeCall(id)}: ${(error as Error).message}`);
    }
    const plan = hooks.decideFromLedger(
      await deps.ledger.callsForUnit(job.id, unitKey, id.callName),
      classified.callClass,
    );
    switch (plan.kind) {
      case 'reuse':
        if (counters) counters.providerAnswersReused++;
        return plan.answer;
      case 'poll': {
        const asyncJob = opts.asyncJob as NonNullable<CallOptions['asyncJob']>;
        const timeoutMs = opts.timeoutMs ?? deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        const target = {
          id,
          info,
          row: plan.row,
          externalId: plan.externalId,
          spec: asyncJob,
          timeoutMs,
        };
        return pollExternal(deps, target);
      }
      case 'review':
        throw reviewFromLedger(id, plan.row);
      case 'send':
        if (plan.authorised) {
          deps.logger.info('sending the one call a person authorised', {
            jobId: job.id,
            unitKey,
            call: id.callName,
          });
        }
        return limited(decl.provider, opts, () => sendCall(deps, id, decl, info, request, opts));
    }
  }

  /**
   * Runs a send under the provider's shared limits (provider-limiter.ts): the wait comes before
   * the ledger row, so a call that never got room leaves nothing in doubt.
   */
  async function limited<T>(provider: string, opts: CallOptions, send: () => Promise<T>) {
    if (!deps.limiter) return send();
    const timeoutMs = opts.timeoutMs ?? deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // An async-job call holds its slot while it polls its external job.
    const ttlMs = timeoutMs + (opts.asyncJob ? (opts.asyncJob.timeoutMs ?? 600_000) : 0) + 30_000;
    const release = await deps.limiter.acquire(provider, {
      signal,
      ttlMs,
      onWait: (wait) => deps.onWait?.(wait),
    });
    try {
      return await send();
    } finally {
      // A failed release is harmless: the slot lapses at its ttl.
      await release().catch(() => undefined);
    }
  }

  return {
    forStage(stage) {
      return {
        call: (name) =>
          Promise.reject(
            new NonRetriableError(
              `provider call "${name}" from ${stage} refused: providers may be called only in execute (${stage} runs again on every retry and would pay again)`,
            ),
          ),
      };
    },
    forUnit(unitKey) {
      const ordinals = new Map<string, number>();
      let closed = false;
      return {
        call(name, spec, opts) {
          if (closed) {
            return Promise.reject(
              new NonRetriableError(
                `provider call "${name}" after unit "${unitKey}" finished refused: await every call inside execute`,
              ),
            );
          }
          return call(unitKey, ordinals, name, spec, opts);
        },
        close() {
          closed = true;
        },
      };
    },
  };
}

/** A guard for runs with no ledger (unit tests of the runner): every call is refused. */
export function createRefusingGuard(why: string): ProviderGuard {
  const client: UnitProviderClient = {
    call: (name) =>
      Promise.reject(new NonRetriableError(`provider call "${name}" refused: ${why}`)),
    close() {},
  };
  return { forStage: () => client, forUnit: () => client };
}
