import { expect, it } from 'vitest';
import { decideRange } from './byte-range.js';

it('reads single byte ranges, suffixes and open ends, clamped to the body', () => {
  expect(decideRange(undefined, 10)).toEqual({ kind: 'whole' });
  expect(decideRange('bytes=0-0', 10)).toEqual({ kind: 'partial', offset: 0, length: 1 });
  expect(decideRange('bytes=2-5', 10)).toEqual({ kind: 'partial', offset: 2, length: 4 });
  expect(decideRange('bytes=7-', 10)).toEqual({ kind: 'partial', offset: 7, length: 3 });
  expect(decideRange('bytes=8-100', 10)).toEqual({ kind: 'partial', offset: 8, length: 2 });
  expect(decideRange('bytes=-3', 10)).toEqual({ kind: 'partial', offset: 7, length: 3 });
  expect(decideRange('bytes=-30', 10)).toEqual({ kind: 'partial', offset: 0, length: 10 });
});

it('answers unsatisfiable ranges as such and ignores what is not one byte range', () => {
  expect(decideRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
  expect(decideRange('bytes=10-20', 10)).toEqual({ kind: 'unsatisfiable' });
  expect(decideRange('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
  expect(decideRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  expect(decideRange('bytes=99999999999999999-', 10)).toEqual({ kind: 'unsatisfiable' });
  for (const h of ['bytes=0-1,3-4', 'items=0-1', 'bytes=5-2', 'bytes=-', 'bytes=a-b', ''])
    expect(decideRange(h, 10)).toEqual({ kind: 'whole' });
});
