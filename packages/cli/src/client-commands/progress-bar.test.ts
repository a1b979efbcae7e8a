import { describe, expect, it } from 'vitest';
import { progressFraction, renderProgressLine } from './progress-bar.js';

describe('progressFraction', () => {
  it.each([
    [{ done: 1, total: 4 }, 0.25],
    [{ fraction: 0.5 }, 0.5],
    [{ percent: 80 }, 0.8],
    [{ done: 9, total: 3 }, 1],
    [{ done: 1, total: 0 }, undefined],
    [{ sentence: 'x' }, undefined],
    ['text', undefined],
    [null, undefined],
  ])('%o → %s', (data, expected) => {
    expect(progressFraction(data)).toBe(expected);
  });
});

describe('renderProgressLine', () => {
  it('draws a bar when the fraction is known', () => {
    expect(renderProgressLine({ state: 'running', fraction: 0.5, unitsDone: 2 }, 10)).toBe(
      '[#####-----]  50%  running  (2 units done)',
    );
  });
  it('counts units when it is not', () => {
    expect(renderProgressLine({ state: 'queued', fraction: undefined, unitsDone: 1 })).toBe(
      'queued  (1 unit done)',
    );
  });
});
