// Catches causes reported out of order (a unit's failure attributed to another) and an abort
// reason lost: causes come in task order whatever order they failed in, and an aborted pool
// rejects with the signal's reason (an AbortError when it has none).
import { isUnitsFailedError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { abortReason, runPool } from './pool.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runPool causes', () => {
  it('lists causes in task order, not in the order they failed', async () => {
    const tasks = [0, 1, 2, 3].map((i) => ({
      key: `u${i}`,
      run: async () => {
        await sleep((3 - i) * 15); // u3 fails first, u0 last
        if (i !== 2) throw new Error(`boom ${i}`);
        return i;
      },
    }));
    const error = await runPool(tasks, { concurrency: 4 }).catch((e: unknown) => e);
    expect(isUnitsFailedError(error)).toBe(true);
    const causes = (error as { causes: { unitKey: string; error: Error }[] }).causes;
    expect(causes.map((c) => [c.unitKey, c.error.message])).toEqual([
      ['u0', 'boom 0'],
      ['u1', 'boom 1'],
      ['u3', 'boom 3'],
    ]);
  });

  it('rejects with the abort reason, or an AbortError when there is none', () => {
    const reason = new Error('cancelled');
    const c = new AbortController();
    c.abort(reason);
    expect(abortReason(c.signal)).toBe(reason);
    const bare = abortReason({ reason: undefined } as AbortSignal) as DOMException;
    expect([bare.name, bare.message]).toEqual(['AbortError', 'aborted']);
  });
});
