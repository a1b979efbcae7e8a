import { describe, expect, test } from 'vitest';
import {
  isJobCancelledError,
  isJobDeadLetteredError,
  isJobEndedError,
  isJobFailedError,
  isJobNeedsReviewError,
  isJobStaleError,
  JobFailedError,
} from './errors.js';
import { settleResult } from './settle-result.js';

const base = { id: 'v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', output: null, error: null, reason: null };

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe('settleResult', () => {
  test('a succeeded job gives its output', () => {
    expect(settleResult({ ...base, state: 'succeeded', output: { n: 1 } })).toEqual({ n: 1 });
  });

  test('a failed job rejects with JOB_FAILED carrying the job error', () => {
    const error = { kind: 'non_retriable', message: 'bad pdf' } as const;
    const e = thrown(() => settleResult({ ...base, state: 'failed', error }));
    expect(e).toBeInstanceOf(JobFailedError);
    expect(isJobFailedError(e) && [e.code, e.error, e.jobId]).toEqual([
      'JOB_FAILED',
      error,
      base.id,
    ]);
    expect(isJobEndedError(e)).toBe(true);
  });

  test('every other terminal state has its own error and code', () => {
    const cases = [
      ['cancelled', isJobCancelledError, 'JOB_CANCELLED'],
      ['needs_review', isJobNeedsReviewError, 'JOB_NEEDS_REVIEW'],
      ['dead_lettered', isJobDeadLetteredError, 'JOB_DEAD_LETTERED'],
      ['stale', isJobStaleError, 'JOB_STALE'],
    ] as const;
    for (const [state, guard, code] of cases) {
      const e = thrown(() => settleResult({ ...base, state, reason: 'MAX_ATTEMPTS' }));
      expect(guard(e), state).toBe(true);
      expect(e).toMatchObject({ code, state, reason: 'MAX_ATTEMPTS' });
    }
  });

  test('guards work across realms: by name, not only instanceof', () => {
    expect(isJobFailedError({ name: 'JobFailedError' })).toBe(true);
    expect(isJobFailedError(new Error('x'))).toBe(false);
  });
});
