// The client-side token bucket on a virtual clock: the waits it asks for, not wall time.
import { describe, expect, it } from 'vitest';
import { createTokenBucket, type Clock } from './token-bucket.js';

function virtualClock(): Clock & { t: number; sleeps: number[] } {
  const c = {
    t: 0,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += ms;
    },
  };
  return c;
}

describe('token bucket', () => {
  it('a full burst goes at once; the next tokens come at the rate', async () => {
    const clock = virtualClock();
    const b = createTokenBucket({ ratePerSecond: 100, clock });
    await b.take(100);
    expect(clock.t).toBe(0);
    await b.take(50);
    expect(clock.t).toBe(500); // 50 tokens at 100/s
    await b.take(100);
    expect(clock.t).toBe(1500);
  });

  it('a take larger than the burst is capped (callers size their batches to the bucket)', async () => {
    const clock = virtualClock();
    const b = createTokenBucket({ ratePerSecond: 10, clock });
    expect(b.burst).toBe(10);
    await b.take(10);
    await b.take(1000);
    expect(clock.t).toBe(1000);
  });

  it('nothing is taken before a pause (a 429 Retry-After) ends', async () => {
    const clock = virtualClock();
    const b = createTokenBucket({ ratePerSecond: 100, clock });
    b.pauseUntil(3000);
    await b.take(1);
    expect(clock.t).toBe(3000);
  });

  it('takers wait in order', async () => {
    const clock = virtualClock();
    const b = createTokenBucket({ ratePerSecond: 10, clock });
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => b.take(10).then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(clock.t).toBe(2000);
  });
});
