// A malformed rule must be refused loudly: a typo that silently meant "no fault" would make a
// retry-safety test pass without ever injecting the failure it claims to test.
import { describe, expect, it } from 'vitest';
import {
  createFaultBook,
  DEFAULT_SLOW_DELAY_MS,
  FaultRuleError,
  parseFaultRules,
  parseHeaderFault,
} from './faults.js';

describe('parseFaultRules', () => {
  it('accepts a list or { rules } and defaults times to 1', () => {
    expect(parseFaultRules([{ fault: 'slow', delayMs: 5 }])).toEqual([
      { fault: 'slow', delayMs: 5, times: 1 },
    ]);
    expect(parseFaultRules({ rules: [{ fault: 'hang', endpoint: 'async-poll' }] })).toEqual([
      { fault: 'hang', endpoint: 'async-poll', times: 1 },
    ]);
  });

  it.each([
    [{}, /array/],
    [[{ fault: 'nope' }], /fault must be one of/],
    [[{ fault: 'hang', endpoint: '/v1/sync' }], /endpoint must be one of/],
    [[{ fault: 'hang', times: 0 }], /times must be an integer >= 1/],
    [[{ fault: 'hang', unitkey: 'u' }], /unknown field unitkey/],
    [[{ fault: 'hang', jobId: '' }], /jobId must be a non-empty string/],
  ])('refuses %j', (input, message) => {
    expect(() => parseFaultRules(input)).toThrow(message);
  });
});

describe('fault book and header', () => {
  it('matches on every given field, first rule wins, consumed rules disappear', () => {
    const book = createFaultBook();
    book.set([
      { fault: 'http-5xx', jobId: 'j1', unitKey: 'u1' },
      { fault: 'http-4xx', endpoint: 'safe', times: 2 },
    ]);
    expect(book.take({ endpoint: 'sync', jobId: 'j1', unitKey: 'u2' })).toBeUndefined();
    expect(book.take({ endpoint: 'safe', jobId: 'j1', unitKey: 'u1' })?.fault).toBe('http-5xx');
    expect(book.take({ endpoint: 'safe', jobId: 'j1', unitKey: 'u1' })?.fault).toBe('http-4xx');
    expect(book.list()).toEqual([{ fault: 'http-4xx', endpoint: 'safe', times: 1 }]);
  });

  it('reads x-fault and refuses unknown values instead of ignoring them', () => {
    expect(parseHeaderFault(undefined, undefined)).toBeUndefined();
    expect(parseHeaderFault('slow', undefined)).toEqual({
      fault: 'slow',
      delayMs: DEFAULT_SLOW_DELAY_MS,
    });
    expect(parseHeaderFault('slow', '10')).toEqual({ fault: 'slow', delayMs: 10 });
    expect(parseHeaderFault('slowly', undefined)).toBeInstanceOf(FaultRuleError);
    expect(parseHeaderFault('slow', '-1')).toBeInstanceOf(FaultRuleError);
  });
});
