// One call that the ledger allows to be sent: ledger row committed → request → outcome recorded,
// with in-place retries where contracts `decideRecovery` says `retry` (retry-safe calls, calls
// that never left), and the matching control error otherwise. Also the fail-closed refusal,
// which writes its `refused` row and sends nothing.

import { backoffMs, NeedsReviewError, SluiceError, type ProviderCall } from '@sluice/contracts';
import type { CallIntent } from '@sluice/storage/d1';
import { DEFAULT_HOOKS } from '../hooks.js';
import { keepable, sleep, type GuardDeps } from './guard-deps.js';
import { ledgerOutcome, pollExternal } from './poll-external.js';
import { describeCall, recoveryError, type CallIdentity } from './recovery-error.js';
import { startCallTrace } from '../tracing/attempt-trace.js';
import type { CallInfo, CallOptions, ProviderAnswer, ProviderRequest } from './types.js';

export const DEFAULT_TIMEOUT_MS = 30_000;

/** A span attribute never carries a query string (some providers take keys there). */
function withoutQuery(url: string): string {
  const q = url.search(/[?#]/);
  return q === -1 ? url : url.slice(0, q);
}

function intentOf(deps: GuardDeps, id: CallIdentity, requestKey: string | null): CallIntent {
  return {
    jobId: deps.job.id,
    unitKey: id.unitKey,
    callName: id.callName,
    attemptId: deps.job.attemptId,
    epoch: deps.job.epoch,
    stage: 'execute',
    provider: id.provider,
    modality: id.modality,
    callClass: id.callClass,
    requestKey,
  };
}

function fenced(deps: GuardDeps): SluiceError {
  deps.onFenced();
  return new SluiceError('LEASE_LOST', 'this attempt no longer holds the job: nothing was sent');
}

/** Refuses a fail-closed call: a `refused` row, an alert, a count, and review. Sends nothing. */
export async function refuseCall(
  deps: GuardDeps,
  id: CallIdentity,
  reason: string,
): Promise<never> {
  const row = await deps.ledger.recordIntent({
    ...intentOf(deps, id, null),
    outcome: 'refused',
    error: { reason },
  });
  if (!row) throw fenced(deps);
  if (deps.counters) deps.counters.failClosedRefusals++;
  deps.logger.error('ALERT provider call refused before sending (fail-closed)', {
    jobId: deps.job.id,
    unitKey: id.unitKey,
    call: id.callName,
    reason,
  });
  throw new NeedsReviewError(
    `${describeCall(id)} refused before sending (fail-closed): ${reason}`,
    {
      details: { ...id, failure: 'refused' },
    },
  );
}

export async function sendCall(
  deps: GuardDeps,
  id: CallIdentity,
  decl: ProviderCall,
  info: CallInfo,
  request: ProviderRequest,
  opts: CallOptions,
): Promise<ProviderAnswer> {
  const { job, signal, counters } = deps;
  const hooks = deps.hooks ?? DEFAULT_HOOKS;
  const timeoutMs = opts.timeoutMs ?? deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxTries = deps.retry?.maxTries ?? 3;
  const headers = { ...(request.headers ?? {}) };
  const hasKey = Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
  if (decl.idempotencyKey !== 'none' && !hasKey) headers['idempotency-key'] = info.idempotencyKey;
  const outgoing = { ...request, headers };
  // A traceparent the job code set itself is left alone.
  const hasTraceparent = Object.keys(headers).some((h) => h.toLowerCase() === 'traceparent');
  for (let tries = 1; ; tries++) {
    // Durable BEFORE the request leaves: a crash from here on is visible to the next attempt.
    const row = await deps.ledger.recordIntent(intentOf(deps, id, info.idempotencyKey));
    if (!row) throw fenced(deps);
    hooks.at('after-call-intent');
    if (counters) counters.providerCalls++;
    const traced = startCallTrace(deps.trace, job.traceContext, {
      name: id.callName,
      callClass: id.callClass,
      provider: id.provider,
      method: outgoing.method ?? (outgoing.body === undefined ? 'GET' : 'POST'),
      url: withoutQuery(outgoing.url),
    });
    const sentAt = performance.now();
    const res = await deps.send(
      traced.traceparent && !hasTraceparent
        ? { ...outgoing, headers: { ...headers, traceparent: traced.traceparent } }
        : outgoing,
      { timeoutMs, signal, onSent: () => hooks.at('after-request-sent') },
    );
    const outcome = res.ok ? 'succeeded' : ledgerOutcome(res.failure);
    deps.observeCall?.(id.callClass, outcome, (performance.now() - sentAt) / 1000);
    traced.end(outcome, !res.ok);
    if (res.ok && opts.asyncJob) {
      let externalId: string;
      try {
        externalId = opts.asyncJob.externalId(res.answer);
        if (typeof externalId !== 'string' || externalId === '') throw new Error('empty id');
      } catch (error) {
        // Submitted (maybe billed) with no id to follow: only a person can tell.
        throw new NeedsReviewError(
          `${describeCall(id)}: submitted, but no external id could be read from the answer (${String(error)})`,
          { details: { ...id, failure: 'ledger' } },
        );
      }
      await deps.ledger.recordExternalId(row, externalId);
      hooks.at('after-external-id');
      const spec = opts.asyncJob;
      return pollExternal(deps, { id, info, row, externalId, spec, timeoutMs });
    }
    if (res.ok) {
      await deps.ledger.recordOutcome(row, {
        outcome: 'succeeded',
        ...(keepable(res.answer) ? { response: res.answer } : {}),
      });
      hooks.at('after-call-outcome');
      return res.answer;
    }
    await deps.ledger.recordOutcome(row, {
      outcome: ledgerOutcome(res.failure),
      error: {
        failure: res.failure,
        message: res.message,
        status: res.answer?.status ?? null,
        ...(res.answer && keepable(res.answer.body) ? { body: res.answer.body } : {}),
      },
    });
    if (signal.aborted) throw signal.reason as Error;
    const action = hooks.decideRecovery({
      callClass: id.callClass,
      failure: res.failure,
      attempt: job.attempts,
      maxAttempts: job.maxAttempts,
      externalId: null,
    });
    const retry = action === 'retry';
    if (retry && tries < maxTries) {
      const retry = { baseMs: deps.retry?.baseMs ?? 200, maxMs: deps.retry?.maxMs ?? 5000 };
      await sleep(backoffMs(tries, retry), signal);
      continue;
    }
    throw recoveryError(action, id, res.failure, res.message);
  }
}
