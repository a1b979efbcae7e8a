import { sleep } from './sleep.js';

export interface WaitForOptions {
  /** Give up after this long (default 10 000 ms). */
  timeoutMs?: number;
  /** Pause between attempts (default 50 ms). */
  intervalMs?: number;
  /** Included in the timeout error, to say what never happened. */
  message?: string;
}

/**
 * Polls `fn` until it returns a truthy value and returns that value. A throw counts as "not yet"
 * (the condition often depends on a server that is still starting); the last error becomes the
 * timeout error's `cause`.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  opts: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const what = opts.message ?? 'condition';
      throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms`, { cause: lastError });
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
