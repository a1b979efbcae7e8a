// Catches a recovery mapped to the wrong control error, or one that loses what a person needs to
// decide: every action gives its own error class and code, names the call (unit, provider,
// modality, class), the failure and the message, and carries the call in its details.
import {
  isNeedsReviewError,
  isNonRetriableError,
  isSluiceError,
  type RecoveryAction,
} from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { describeCall, recoveryError, type CallIdentity } from './recovery-error.js';

const call: CallIdentity = {
  unitKey: 'u7',
  callName: 'tts#2',
  provider: 'acme-ai',
  modality: 'speech',
  callClass: 'ambiguous',
};

describe('recoveryError details', () => {
  it('describes the call by name, unit, provider, modality and class', () => {
    expect(describeCall(call)).toBe('call "tts#2" of unit "u7" (acme-ai/speech, ambiguous)');
  });

  it.each([
    ['needs_review', 'NEEDS_REVIEW'],
    ['fail', 'NON_RETRIABLE'],
    ['stale', 'JOB_STALE'],
    ['retry', 'PROVIDER_CALL_FAILED'],
    ['dead_letter', 'PROVIDER_CALL_FAILED'],
  ] as const)('%s → %s with the call and the failure', (action, code) => {
    const error = recoveryError(action, call, 'timeout', 'no answer in 30 s');
    expect(isSluiceError(error) && error.code).toBe(code);
    expect(error.message).toContain(`${describeCall(call)} failed: timeout (no answer in 30 s)`);
    expect(isNeedsReviewError(error)).toBe(action === 'needs_review');
    expect(isNonRetriableError(error)).toBe(action === 'fail');
    if (action !== 'fail') {
      expect((error as { details?: unknown }).details).toEqual({ ...call, failure: 'timeout' });
    }
  });

  it('a "poll" reaching the mapping is a bug, said as such', () => {
    const error = recoveryError('poll' as RecoveryAction, call, 'timeout', 'm');
    expect(isSluiceError(error)).toBe(false);
    expect(error.message).toBe(
      `bug: recovery "poll" reached the error mapping for ${describeCall(call)} failed: timeout (m)`,
    );
  });
});
