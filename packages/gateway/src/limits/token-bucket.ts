// Token buckets keyed by a string (a key id, a tenant, an address). A bucket holds at most
// `burst` tokens and refills `perSecond`; `take` answers 0 when a token was taken, otherwise how
// many milliseconds until one is there (the Retry-After). Buckets are kept in insertion order and
// the oldest are dropped past `maxBuckets`, so an attacker cycling ids costs bounded memory (a
// dropped bucket starts full again, which only errs towards letting a request through).

export interface Rate {
  /** Sustained requests per second. */
  perSecond: number;
  /** Requests allowed at once after a quiet period. */
  burst: number;
}

export interface TokenBuckets {
  /** 0 if a token was taken; else milliseconds until the next token. */
  take(id: string, now?: number): number;
  /** Like `take` but takes nothing: whether a token is there. */
  peek(id: string, now?: number): number;
  /** Gives back a token taken before (never past the burst). */
  give(id: string, now?: number): void;
  size(): number;
}

export function createTokenBuckets(rate: Rate, maxBuckets = 100_000): TokenBuckets {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMs = rate.perSecond / 1000;

  function refill(id: string, now: number): { tokens: number; at: number } {
    let b = buckets.get(id);
    if (!b) {
      if (buckets.size >= maxBuckets) {
        const oldest = buckets.keys().next();
        if (!oldest.done) buckets.delete(oldest.value);
      }
      b = { tokens: rate.burst, at: now };
      buckets.set(id, b);
      return b;
    }
    b.tokens = Math.min(rate.burst, b.tokens + (now - b.at) * perMs);
    b.at = now;
    return b;
  }
  const wait = (tokens: number) => (perMs > 0 ? Math.ceil((1 - tokens) / perMs) : 60_000);

  return {
    take(id, now = Date.now()) {
      const b = refill(id, now);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return wait(b.tokens);
    },
    peek(id, now = Date.now()) {
      const b = refill(id, now);
      return b.tokens >= 1 ? 0 : wait(b.tokens);
    },
    give(id, now = Date.now()) {
      const b = refill(id, now);
      b.tokens = Math.min(rate.burst, b.tokens + 1);
    },
    size: () => buckets.size,
  };
}
