// Reconnect timing and abort plumbing shared by watches and the WebSocket client.

import { backoffMs, sleep } from '@sluice/contracts/wire';

export interface ReconnectOptions {
  /** First retry delay (default 250 ms). */
  minMs?: number | undefined;
  /** Ceiling of the exponential backoff (default 10 s). */
  maxMs?: number | undefined;
}

export const DEFAULT_RECONNECT = { minMs: 250, maxMs: 10_000 } as const;

/**
 * Exponential backoff with jitter: attempt 0 waits about `minMs`, each attempt doubles, capped at
 * `maxMs`. Jitter (50–100 %) keeps many clients from reconnecting in step after a restart.
 */
export function backoffDelay(
  attempt: number,
  options: ReconnectOptions = {},
  random: () => number = Math.random,
): number {
  const minMs = Math.max(0, options.minMs ?? DEFAULT_RECONNECT.minMs);
  const maxMs = Math.max(minMs, options.maxMs ?? DEFAULT_RECONNECT.maxMs);
  // The same exponential backoff with 50–100 % jitter the worker uses, counted from attempt 0.
  return backoffMs(Math.min(attempt, 30) + 1, { baseMs: minMs, maxMs, random });
}

export { sleep };

/**
 * A signal that aborts when any of the given ones does. `dispose()` removes the listeners, so
 * long-lived signals (the client's own) do not collect one listener per finished watch.
 */
export function linkSignals(signals: readonly (AbortSignal | undefined)[]): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const controller = new AbortController();
  const dispose = () => {
    for (const signal of present) signal.removeEventListener('abort', onAbort);
  };
  const onAbort = (event: Event) => {
    dispose();
    controller.abort((event.target as AbortSignal).reason);
  };
  const already = present.find((s) => s.aborted);
  if (already) controller.abort(already.reason);
  else for (const signal of present) signal.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, dispose };
}

/** The rejection an aborted operation settles with. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
