// Follows a pollable call whose external job id is recorded in the ledger. Polls never bill, so
// a failed poll is simply polled again (contracts `decideRecovery` answers `poll` for a call with
// a recorded id); a clear rejection or a provider-side failure ends the call; running out of
// time ends only this attempt: the next one finds the same id in the ledger and polls it.

import {
  decideRecovery,
  NonRetriableError,
  SluiceError,
  type CallFailure,
} from '@sluice/contracts';
import type { LedgerRow } from '@sluice/storage/d1';
import { DEFAULT_HOOKS } from '../hooks.js';
import { keepable, sleep, type GuardDeps } from './guard-deps.js';
import { describeCall, recoveryError, type CallIdentity } from './recovery-error.js';
import type { AsyncJobSpec, CallInfo, ProviderAnswer } from './types.js';

const DEFAULT_INTERVAL_MS = 200;
const DEFAULT_POLL_TIMEOUT_MS = 10 * 60_000;
/** Failed polls in a row before this attempt gives up (the id stays recorded). */
const MAX_POLL_FAILURES = 10;

export interface PollTarget {
  id: CallIdentity;
  info: CallInfo;
  row: LedgerRow;
  externalId: string;
  spec: AsyncJobSpec;
  timeoutMs: number;
}

/** The ledger has no `target_missing`: a 410 is a clear answer, stored as `rejected`. */
export function ledgerOutcome(failure: CallFailure): Exclude<CallFailure, 'target_missing'> {
  return failure === 'target_missing' ? 'rejected' : failure;
}

export async function pollExternal(deps: GuardDeps, t: PollTarget): Promise<ProviderAnswer> {
  const { job, signal } = deps;
  const what = describeCall(t.id);
  const deadline = Date.now() + (t.spec.timeoutMs ?? DEFAULT_POLL_TIMEOUT_MS);
  const interval = t.spec.intervalMs ?? DEFAULT_INTERVAL_MS;
  let failures = 0;
  for (;;) {
    signal.throwIfAborted();
    const res = await deps.send(t.spec.poll(t.externalId, t.info), {
      timeoutMs: t.timeoutMs,
      signal,
    });
    if (res.ok) {
      failures = 0;
      const status = t.spec.status(res.answer);
      if (status === 'succeeded') {
        await deps.ledger.recordOutcome(t.row, {
          outcome: 'succeeded',
          externalId: t.externalId,
          ...(keepable(res.answer) ? { response: res.answer } : {}),
        });
        (deps.hooks ?? DEFAULT_HOOKS).at('after-call-outcome');
        return res.answer;
      }
      if (status === 'failed') {
        // The provider says its job failed: a known outcome, no doubt to review.
        await deps.ledger.recordOutcome(t.row, {
          outcome: 'rejected',
          error: { message: 'the provider reported the external job failed', status: 'failed' },
        });
        throw new NonRetriableError(`${what}: the provider's job ${t.externalId} failed`);
      }
    } else {
      if (signal.aborted) throw signal.reason as Error;
      const action = decideRecovery({
        callClass: 'pollable',
        failure: res.failure,
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
        externalId: t.externalId,
      });
      // `poll` (after sending) and `retry` (the poll never left) both mean: poll again.
      if (action !== 'poll' && action !== 'retry') {
        await deps.ledger.recordOutcome(t.row, {
          outcome: ledgerOutcome(res.failure),
          error: { message: `poll: ${res.message}`, status: res.answer?.status ?? null },
        });
        throw recoveryError(action, t.id, res.failure, `poll of ${t.externalId}: ${res.message}`);
      }
      if (++failures >= MAX_POLL_FAILURES) {
        throw new SluiceError(
          'PROVIDER_CALL_FAILED',
          `${what}: ${failures} polls of ${t.externalId} failed in a row (${res.message}); the next attempt polls it again`,
        );
      }
    }
    if (Date.now() >= deadline) {
      throw new SluiceError(
        'PROVIDER_CALL_FAILED',
        `${what}: external job ${t.externalId} still running after ${t.spec.timeoutMs ?? DEFAULT_POLL_TIMEOUT_MS} ms; the next attempt polls it again`,
      );
    }
    await sleep(interval, signal);
  }
}
