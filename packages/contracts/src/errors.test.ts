import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  NeedsReviewError,
  NonRetriableError,
  RetryAfterError,
  SluiceError,
  UnitsFailedError,
  isErrorCode,
  isNeedsReviewError,
  isNonRetriableError,
  isRetryAfterError,
  isSluiceError,
  isUnitsFailedError,
  parseError,
} from './errors.js';

describe('errors', () => {
  it('SluiceError carries a code, details and cause', () => {
    const cause = new Error('root');
    const e = new SluiceError('NOT_FOUND', 'job not found', { details: { id: 'x' }, cause });
    expect(e.name).toBe('SluiceError');
    expect(e.code).toBe('NOT_FOUND');
    expect(e.details).toEqual({ id: 'x' });
    expect(e.cause).toBe(cause);
    expect(isSluiceError(e)).toBe(true);
    expect(new SluiceError('INTERNAL', 'x').cause).toBeUndefined();
  });
  it('control errors have stable names and codes', () => {
    expect(new NonRetriableError('no').name).toBe('NonRetriableError');
    expect(new NonRetriableError('no').code).toBe('NON_RETRIABLE');
    const r = new RetryAfterError('later', 1500);
    expect([r.name, r.code, r.retryAfterMs]).toEqual(['RetryAfterError', 'RETRY_AFTER', 1500]);
    expect(new RetryAfterError('later', -5).retryAfterMs).toBe(0);
    expect(new NeedsReviewError('look').code).toBe('NEEDS_REVIEW');
    const u = new UnitsFailedError([
      { unitKey: 'a', error: new Error('x') },
      { unitKey: 'b', error: 'y' },
    ]);
    expect(u.message).toBe('2 unit(s) failed: a, b');
    expect(u.causes).toHaveLength(2);
  });
  it('guards recognise errors from another realm by name', () => {
    expect(isNonRetriableError({ name: 'NonRetriableError', message: 'x' })).toBe(true);
    expect(isRetryAfterError({ name: 'RetryAfterError' })).toBe(true);
    expect(isNeedsReviewError({ name: 'NeedsReviewError' })).toBe(true);
    expect(isUnitsFailedError({ name: 'UnitsFailedError', causes: [] })).toBe(true);
    expect(isSluiceError({ name: 'SluiceError', code: 'CONFLICT', message: 'x' })).toBe(true);
    expect(isSluiceError({ name: 'SluiceError', code: 'NOPE' })).toBe(false);
    expect(isSluiceError({ name: 'Sluice', code: 'CONFLICT' })).toBe(false);
    expect(isSluiceError(null)).toBe(false);
    expect(isNonRetriableError(new Error('x'))).toBe(false);
    expect(isNonRetriableError(null)).toBe(false);
  });
  it('isErrorCode', () => {
    for (const c of ERROR_CODES) expect(isErrorCode(c)).toBe(true);
    expect(isErrorCode('nope')).toBe(false);
    expect(isErrorCode(1)).toBe(false);
  });
  it('parseError turns anything into a serialisable JobError', () => {
    expect(parseError(new NonRetriableError('bad input'))).toEqual({
      kind: 'non_retriable',
      message: 'bad input',
    });
    expect(parseError(new RetryAfterError('slow down', 2000))).toEqual({
      kind: 'retry_after',
      message: 'slow down',
      retryAfterMs: 2000,
    });
    expect(parseError({ name: 'RetryAfterError', message: 'm', retryAfterMs: 'x' })).toEqual({
      kind: 'retry_after',
      message: 'm',
      retryAfterMs: 0,
    });
    expect(parseError(new NeedsReviewError('check'))).toEqual({
      kind: 'needs_review',
      message: 'check',
    });
    expect(parseError(new SluiceError('CONFLICT', 'dup', { details: { a: 1 } }))).toEqual({
      kind: 'sluice',
      code: 'CONFLICT',
      message: 'dup',
      details: { a: 1 },
    });
    expect(parseError(new SluiceError('CONFLICT', 'dup'))).toEqual({
      kind: 'sluice',
      code: 'CONFLICT',
      message: 'dup',
    });
    const plain = parseError(new TypeError('boom'));
    expect(plain).toMatchObject({ kind: 'error', name: 'TypeError', message: 'boom' });
    expect(plain.kind === 'error' && plain.stack).toContain('boom');
    const noStack = new Error('nostack');
    noStack.stack = undefined;
    expect(parseError(noStack)).toEqual({ kind: 'error', name: 'Error', message: 'nostack' });
    expect(parseError({ message: 'from json' })).toEqual({
      kind: 'error',
      name: 'Error',
      message: 'from json',
    });
    expect(parseError({ name: 'X', message: 'y' })).toEqual({
      kind: 'error',
      name: 'X',
      message: 'y',
    });
    expect(parseError('oops')).toEqual({ kind: 'unknown', message: 'oops' });
    expect(parseError(42)).toEqual({ kind: 'unknown', message: '42' });
    expect(parseError({ a: 1 })).toEqual({ kind: 'unknown', message: '{"a":1}' });
    expect(parseError(undefined)).toEqual({ kind: 'unknown', message: 'undefined' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(parseError(cyclic)).toEqual({ kind: 'unknown', message: '[object Object]' });
  });
  it('parseError keeps every cause of UnitsFailedError, recursively', () => {
    const inner = new UnitsFailedError([{ unitKey: 'a.1', error: new NonRetriableError('x') }]);
    const err = new UnitsFailedError([
      { unitKey: 'a', error: inner },
      { unitKey: 'b', error: 'str' },
    ]);
    expect(parseError(err)).toEqual({
      kind: 'units_failed',
      message: '2 unit(s) failed: a, b',
      causes: [
        {
          unitKey: 'a',
          error: {
            kind: 'units_failed',
            message: '1 unit(s) failed: a.1',
            causes: [{ unitKey: 'a.1', error: { kind: 'non_retriable', message: 'x' } }],
          },
        },
        { unitKey: 'b', error: { kind: 'unknown', message: 'str' } },
      ],
    });
    expect(parseError({ name: 'UnitsFailedError', message: 'm', causes: 'nope' })).toEqual({
      kind: 'units_failed',
      message: 'm',
      causes: [],
    });
  });
});
