// Reconnect timing and abort plumbing shared by watches and the WebSocket client.

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
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling * (0.5 + random() * 0.5));
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

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
