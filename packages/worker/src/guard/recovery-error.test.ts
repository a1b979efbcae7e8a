// Catches a guard whose error ends the attempt differently from what contracts
// `decideRecovery` decided: for every class × failure × budget, the control error the guard
// raises must make the host's `decideOutcome` store exactly the action's outcome, also when the
// error arrives wrapped in a stage's `UnitsFailedError`.
import {
  CALL_CLASSES,
  CALL_FAILURES,
  decideRecovery,
  UnitsFailedError,
  type RecoveryAction,
} from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { decideOutcome, type Outcome } from '../attempt/decide-outcome.js';
import { recoveryError } from './recovery-error.js';

const EXPECTED: Record<Exclude<RecoveryAction, 'poll'>, Outcome['kind']> = {
  needs_review: 'review',
  fail: 'fail',
  stale: 'stale',
  retry: 'retry',
  dead_letter: 'dead_letter',
};

describe('recoveryError', () => {
  it('every recovery action ends the attempt as decideRecovery said', () => {
    let checked = 0;
    for (const callClass of CALL_CLASSES) {
      if (callClass === 'fail_closed') continue;
      for (const failure of CALL_FAILURES) {
        for (const attempts of [1, 3]) {
          const action = decideRecovery({ callClass, failure, attempt: attempts, maxAttempts: 3 });
          if (action === 'poll') continue;
          const call = { unitKey: 'u0', callName: 'tts', provider: 'p', modality: 'm', callClass };
          const error = recoveryError(action, call, failure, 'boom');
          for (const thrown of [error, new UnitsFailedError([{ unitKey: 'u0', error }])]) {
            const outcome = decideOutcome({
              result: { ok: false, error: thrown },
              cause: undefined,
              attempts,
              maxAttempts: 3,
              backoff: () => 10,
            });
            expect(outcome.kind, `${callClass} ${failure} ${attempts}/3 → ${action}`).toBe(
              EXPECTED[action],
            );
            if (outcome.kind === 'review') {
              expect(outcome).toMatchObject({ unitKey: 'u0', provider: 'p' });
              expect(outcome.reason).toContain('not repeated without');
            }
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
  });
});
