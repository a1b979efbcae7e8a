// Catches outcome mapping fooled by errors from another realm or half-formed ones (a child
// process, a duplicate package copy): only a real units-failed error with a causes array is
// unpacked, a review's unit and provider are taken only when they are strings, and a review
// without a message still says why.
import { NeedsReviewError, UnitsFailedError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { classifyError, decideOutcome } from './decide-outcome.js';

const failed = (error: unknown) =>
  decideOutcome({
    result: { ok: false, error },
    cause: undefined,
    attempts: 1,
    maxAttempts: 3,
    backoff: () => 10,
  });

describe('decideOutcome with foreign errors', () => {
  it('unpacks causes only of a units-failed error that has a causes array', () => {
    const review = new NeedsReviewError('in doubt');
    expect(classifyError({ message: 'x', causes: [{ unitKey: 'u0', error: review }] })).toBe(
      'retriable',
    );
    expect(classifyError({ name: 'UnitsFailedError', message: 'x', causes: 'none' })).toBe(
      'retriable',
    );
    expect(failed({ name: 'UnitsFailedError', message: 'x', causes: null })).toMatchObject({
      kind: 'retry',
    });
  });

  it('takes unit and provider from review details only when they are strings', () => {
    const odd = { name: 'NeedsReviewError', message: 'm', details: { unitKey: 5, provider: {} } };
    expect(failed(odd)).toEqual({
      kind: 'review',
      error: expect.anything(),
      reason: 'm',
    });
    const nullDetails = { name: 'NeedsReviewError', message: 'm2', details: null };
    expect(failed(nullDetails)).toMatchObject({ kind: 'review', reason: 'm2' });
    expect(failed({ name: 'NeedsReviewError' })).toMatchObject({
      kind: 'review',
      reason: 'needs review',
    });
    // Only a units-failed error's causes name the unit: another review with a causes field does not.
    const lookalike = {
      name: 'NeedsReviewError',
      message: 'outer',
      causes: [{ unitKey: 'u9', error: new NeedsReviewError('inner') }],
    };
    expect(failed(lookalike)).toEqual({
      kind: 'review',
      error: expect.anything(),
      reason: 'outer',
    });
    const inside = new UnitsFailedError([
      { unitKey: 'u3', error: { name: 'NeedsReviewError', message: 'foreign', details: null } },
    ]);
    expect(failed(inside)).toMatchObject({ kind: 'review', reason: 'foreign', unitKey: 'u3' });
  });
});
