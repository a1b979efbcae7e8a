// A limit hold never spends an attempt: an attempt stopped only by limits (a LimitHeldError, or a
// stage whose every failed unit was held) is a retry that refunds it and names the limit, even on
// the job's last attempt; a stage where any unit failed for real is an ordinary retry.
import {
  LimitHeldError,
  RetryAfterError,
  UnitsFailedError,
  type JobWaiting,
} from '@sluice/contracts';
import { expect, it } from 'vitest';
import { decideOutcome } from './decide-outcome.js';

const waiting: JobWaiting = {
  reason: 'provider',
  name: 'slowco',
  by: 'concurrency',
  since: '2026-12-01T00:00:00.000Z',
};
const held = () => new LimitHeldError('held', 1000, waiting);
const last = (error: unknown) =>
  decideOutcome({ result: { ok: false, error }, cause: undefined, attempts: 3, maxAttempts: 3 });

it('a held attempt is a refunded retry naming the limit, even on the last attempt', () => {
  expect(last(held())).toMatchObject({ kind: 'retry', delayMs: 1000, refund: true, waiting });
  const allHeld = new UnitsFailedError([
    { unitKey: 'a', error: held() },
    { unitKey: 'b', error: held() },
  ]);
  expect(last(allHeld)).toMatchObject({ kind: 'retry', refund: true, waiting });
});

it('a stage with any unit that failed for real spends its attempt', () => {
  const mixed = new UnitsFailedError([
    { unitKey: 'a', error: held() },
    { unitKey: 'b', error: new RetryAfterError('provider said 429', 500) },
  ]);
  const outcome = last(mixed);
  expect(outcome.kind).toBe('retry');
  expect(outcome).not.toHaveProperty('refund');
});
