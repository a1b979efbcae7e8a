import {
  NeedsReviewError,
  NonRetriableError,
  RetryAfterError,
  SluiceError,
  UnitsFailedError,
} from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { classifyError, decideOutcome, SEVERITY, type OutcomeFacts } from './decide-outcome.js';

const failed = (error: unknown, f: Partial<OutcomeFacts> = {}) =>
  decideOutcome({
    result: { ok: false, error },
    cause: undefined,
    attempts: 1,
    maxAttempts: 3,
    backoff: (n) => n * 100,
    ...f,
  });

describe('decideOutcome', () => {
  it('succeeds with the output', () => {
    expect(
      decideOutcome({
        result: { ok: true, output: 1 },
        cause: undefined,
        attempts: 1,
        maxAttempts: 3,
      }),
    ).toEqual({ kind: 'succeed', output: 1 });
  });

  it('maps the control errors', () => {
    expect(failed(new NonRetriableError('no'))).toMatchObject({
      kind: 'fail',
      error: { kind: 'non_retriable' },
    });
    expect(failed(new NeedsReviewError('look'))).toMatchObject({ kind: 'review', reason: 'look' });
    expect(failed(new RetryAfterError('later', 1234))).toMatchObject({
      kind: 'retry',
      delayMs: 1234,
    });
    expect(failed(new SluiceError('JOB_STALE', 'gone'))).toMatchObject({
      kind: 'stale',
      reason: 'FILE_MISSING',
    });
  });

  it('guards by name too (errors from another realm)', () => {
    const foreign = Object.assign(new Error('no'), { name: 'NonRetriableError' });
    expect(failed(foreign)).toMatchObject({ kind: 'fail' });
  });

  it('retries ordinary errors with backoff until the budget is used, then dead-letters', () => {
    expect(failed(new Error('boom'), { attempts: 2 })).toMatchObject({
      kind: 'retry',
      delayMs: 200,
    });
    expect(failed(new Error('boom'), { attempts: 3 })).toMatchObject({
      kind: 'dead_letter',
      reason: 'MAX_ATTEMPTS',
      error: { kind: 'error', message: 'boom' },
    });
  });

  it('lets the worst unit decide a failed stage, keeping every cause', () => {
    const units = new UnitsFailedError([
      { unitKey: 'a', error: new Error('flaky') },
      { unitKey: 'b', error: new NonRetriableError('bad input') },
    ]);
    const o = failed(units);
    expect(o).toMatchObject({ kind: 'fail' });
    if (o.kind === 'fail' && o.error.kind === 'units_failed')
      expect(o.error.causes).toHaveLength(2);
    else throw new Error('expected units_failed');
    const retry = new UnitsFailedError([
      { unitKey: 'a', error: new RetryAfterError('slow', 50) },
      { unitKey: 'b', error: new RetryAfterError('slower', 90) },
    ]);
    expect(failed(retry)).toMatchObject({ kind: 'retry', delayMs: 90 });
  });

  it('a failed stage ends as its most severe cause: review over fail over stale over retry', () => {
    const review = new NeedsReviewError('provider may have billed', {
      details: { unitKey: 'u2', provider: 'fake' },
    });
    const causes = [
      { unitKey: 'u0', error: new Error('flaky') },
      { unitKey: 'u1', error: new NonRetriableError('bad input') },
      { unitKey: 'u2', error: review },
      { unitKey: 'u3', error: new SluiceError('JOB_STALE', 'gone') },
      { unitKey: 'u4', error: new RetryAfterError('later', 10) },
    ];
    // Every order of the causes gives the same answer.
    for (const order of [causes, [...causes].reverse()]) {
      expect(failed(new UnitsFailedError(order))).toMatchObject({
        kind: 'review',
        reason: 'provider may have billed',
        unitKey: 'u2',
        provider: 'fake',
      });
    }
    const without = (keys: string[]) =>
      new UnitsFailedError(causes.filter((c) => !keys.includes(c.unitKey)));
    expect(failed(without(['u2']))).toMatchObject({ kind: 'fail' });
    expect(failed(without(['u1', 'u2']))).toMatchObject({ kind: 'stale' });
    expect(failed(without(['u1', 'u2', 'u3']))).toMatchObject({ kind: 'retry', delayMs: 10 });
    expect(failed(without(['u1', 'u2', 'u3', 'u4']), { attempts: 3 })).toMatchObject({
      kind: 'dead_letter',
    });
    expect(SEVERITY).toEqual([
      'needs_review',
      'non_retriable',
      'stale',
      'retry_after',
      'retriable',
    ]);
    // A review without details names the unit from the stage's cause.
    const bare = new UnitsFailedError([{ unitKey: 'u9', error: new NeedsReviewError('look') }]);
    expect(failed(bare)).toMatchObject({ kind: 'review', reason: 'look', unitKey: 'u9' });
    expect(classifyError(new UnitsFailedError([]))).toBe('retriable');
  });

  it('lets the abort cause win over what the code threw', () => {
    const boom = new Error('aborted');
    expect(failed(boom, { cause: 'cancelled' })).toEqual({ kind: 'ack_only' });
    expect(failed(boom, { cause: 'lease_lost' })).toEqual({ kind: 'none' });
    expect(failed(boom, { cause: 'drain', attempts: 3 })).toMatchObject({
      kind: 'retry',
      delayMs: 0,
      reason: 'DRAINED',
    });
    expect(
      decideOutcome({
        result: { ok: true, output: 2 },
        cause: 'drain',
        attempts: 1,
        maxAttempts: 3,
      }),
    ).toEqual({ kind: 'succeed', output: 2 });
  });
});
