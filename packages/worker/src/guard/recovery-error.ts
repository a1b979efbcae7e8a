// Maps contracts `decideRecovery`'s answer to the control error that makes the host end the
// attempt that way (decide-outcome reads these errors): one place, exhaustive.
//
//   needs_review → NeedsReviewError (parked for a person, never retried by itself)
//   fail         → NonRetriableError
//   stale        → SluiceError JOB_STALE
//   retry, dead_letter → a plain retriable PROVIDER_CALL_FAILED error: the attempt budget in the
//                  database decides between another attempt and the dead-letter queue
//   poll         → never raised: the guard polls (an error here is a bug)

import {
  NeedsReviewError,
  NonRetriableError,
  SluiceError,
  type CallClass,
  type CallFailure,
  type RecoveryAction,
} from '@sluice/contracts';

export interface CallIdentity {
  unitKey: string;
  callName: string;
  provider: string;
  modality: string;
  callClass: CallClass;
}

/** What the host's decide-outcome reads from a NeedsReviewError raised by the guard. */
export interface ReviewDetails extends CallIdentity {
  failure: CallFailure | 'refused' | 'ledger';
}

export function describeCall(c: CallIdentity): string {
  return `call "${c.callName}" of unit "${c.unitKey}" (${c.provider}/${c.modality}, ${c.callClass})`;
}

export function recoveryError(
  action: RecoveryAction,
  call: CallIdentity,
  failure: CallFailure,
  message: string,
): Error {
  const what = `${describeCall(call)} failed: ${failure} (${message})`;
  switch (action) {
    case 'needs_review': {
      const details: ReviewDetails = { ...call, failure };
      return new NeedsReviewError(
        `${what}; the provider may have billed it, so it is not repeated without a person's approval`,
        { details: { ...details } },
      );
    }
    case 'fail':
      return new NonRetriableError(what);
    case 'stale':
      return new SluiceError('JOB_STALE', what, { details: { ...call, failure } });
    case 'retry':
    case 'dead_letter':
      return new SluiceError('PROVIDER_CALL_FAILED', what, { details: { ...call, failure } });
    case 'poll':
      return new Error(`bug: recovery "poll" reached the error mapping for ${what}`);
  }
}
