import { describe, expect, it } from 'vitest';
import { sleep } from './sleep.js';

describe('sleep', () => {
  it('waits, and ends at once when aborted', async () => {
    const t0 = Date.now();
    await sleep(30);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    const ac = new AbortController();
    const t1 = Date.now();
    const p = sleep(10_000, ac.signal);
    ac.abort();
    await p;
    expect(Date.now() - t1).toBeLessThan(1000);
    const t2 = Date.now();
    await sleep(10_000, AbortSignal.abort());
    expect(Date.now() - t2).toBeLessThan(1000);
  });
});
