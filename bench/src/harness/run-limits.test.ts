import { describe, expect, it } from 'vitest';
import { busiestWindow } from './run-limits.js';

describe('busiestWindow', () => {
  it('counts the most arrivals in any half-open window starting at an arrival', () => {
    expect(busiestWindow([], 1_000)).toBe(0);
    expect(busiestWindow([0, 999, 1_000, 1_001], 1_000)).toBe(3);
    expect(busiestWindow([0, 500, 1_000, 1_500, 2_000], 1_000)).toBe(2);
    expect(busiestWindow([0, 0, 0, 5_000], 1_000)).toBe(3);
  });
});
