import { describe, expect, it } from 'vitest';
import {
  advantage,
  median,
  pairedAdvantages,
  percentile,
  spread,
  summarizeLatency,
} from './stats.js';

describe('stats', () => {
  it('takes the middle of odd and even samples', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(spread([5, 1, 9, Number.NaN])).toEqual({ median: 5, min: 1, max: 9, n: 3 });
  });

  it('uses nearest-rank percentiles', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(summarizeLatency([3, 1, 2]).max).toBe(3);
  });

  it('reports advantage above 1 when the subject wins, whatever the direction', () => {
    expect(advantage(200, 100, 'higher')).toBe(2);
    expect(advantage(1, 4, 'lower')).toBe(4);
    const ratios = pairedAdvantages(
      new Map([
        [1, 10],
        [2, 20],
        [3, 30],
      ]),
      new Map([
        [1, 5],
        [3, 10],
      ]),
      'higher',
    );
    expect(ratios).toEqual([2, 3]);
  });
});
