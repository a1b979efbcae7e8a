// A client-side token bucket: at most `ratePerSecond` on average, bursts up to `burst`. The
// Workflows REST API answers 429 past 100 creates/s per workflow and 300/s per account; staying
// under both on our side keeps 429s (and their Retry-After pauses) the exception. The clock and
// the sleep are injected so tests check the waits the bucket asks for, not wall time.

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface TokenBucket {
  /** Waits until `n` tokens (at most `burst`) are available and takes them. */
  take(n: number): Promise<void>;
  /** Nothing may be taken before `until` (a 429's Retry-After applies to every caller). */
  pauseUntil(until: number): void;
  readonly burst: number;
}

export function createTokenBucket(opts: {
  ratePerSecond: number;
  burst?: number | undefined;
  clock?: Clock | undefined;
}): TokenBucket {
  const clock = opts.clock ?? systemClock;
  const rate = opts.ratePerSecond;
  if (!(rate > 0)) throw new RangeError('ratePerSecond must be positive');
  const burst = Math.max(1, Math.floor(opts.burst ?? rate));
  let tokens = burst;
  let last = clock.now();
  let pausedUntil = 0;
  // Callers queue in order: a large take is not starved by a stream of small ones.
  let queue: Promise<void> = Promise.resolve();

  const refill = () => {
    const now = clock.now();
    tokens = Math.min(burst, tokens + ((now - last) * rate) / 1000);
    last = now;
  };

  async function takeNow(n: number): Promise<void> {
    for (;;) {
      const now = clock.now();
      if (now < pausedUntil) {
        await clock.sleep(pausedUntil - now);
        continue;
      }
      refill();
      if (tokens >= n) {
        tokens -= n;
        return;
      }
      await clock.sleep(Math.ceil(((n - tokens) * 1000) / rate));
    }
  }

  return {
    burst,
    take(n) {
      const want = Math.min(Math.max(1, n), burst);
      const turn = queue.then(() => takeNow(want));
      queue = turn.catch(() => {});
      return turn;
    },
    pauseUntil(until) {
      pausedUntil = Math.max(pausedUntil, until);
    },
  };
}
