// prepare's plan: keys that stay the same on every retry (a retry finds its checkpoints and
// ledger rows by them), and a scene too long for one clip refused before anything is paid.
import { describe, expect, it } from 'vitest';
import { planScenes, wrapLines } from './script.js';

describe('planScenes', () => {
  it('gives each scene a key from its position, the same on every call', () => {
    const input = { title: 'T', scenes: [{ text: 'one' }, { text: 'two words' }] };
    const plan = planScenes(input);
    expect(plan.map((u) => u.key)).toEqual(['scene-01', 'scene-02']);
    expect(plan[1]?.input).toEqual({ index: 1, scenes: 2, title: 'T', text: 'two words' });
    expect(planScenes(input)).toEqual(plan);
  });
  it('refuses a scene over 60 words as non-retriable', () => {
    const long = Array.from({ length: 61 }, (_, i) => `w${i}`).join(' ');
    expect(() => planScenes({ title: 'T', scenes: [{ text: 'ok' }, { text: long }] })).toThrow(
      expect.objectContaining({
        name: 'NonRetriableError',
        message: expect.stringContaining('scene 2 has 61 words'),
      }),
    );
  });
});

describe('wrapLines', () => {
  it('breaks at spaces, never inside a word', () => {
    expect(wrapLines('aa bb cc dddddddd e', 5)).toEqual(['aa bb', 'cc', 'dddddddd', 'e']);
  });
});
