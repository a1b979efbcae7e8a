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

interface Fanout {
  readonly dependants: Set<(reason: unknown) => void>;
  readonly fire: () => void;
}

/** Per signal, the one `abort` listener this module added and who it tells. */
const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `fn` with the reason when `signal` aborts; returns the function that stops it. However
 * many callers wait on one signal (the client's own, or a caller's passed to hundreds of
 * `result()` calls), the signal carries ONE listener: Node 20 warns `MaxListenersExceededWarning`
 * at the 11th, and each would stay until its wait ended. An already aborted signal never calls
 * `fn`: check `aborted` first.
 */
export function onAbort(signal: AbortSignal, fn: (reason: unknown) => void): () => void {
  let fanout = fanouts.get(signal);
  if (!fanout) {
    const dependants = new Set<(reason: unknown) => void>();
    const fire = () => {
      fanouts.delete(signal);
      for (const dependant of [...dependants]) dependant(signal.reason);
    };
    fanout = { dependants, fire };
    fanouts.set(signal, fanout);
    signal.addEventListener('abort', fire, { once: true });
  }
  const { dependants, fire } = fanout;
  dependants.add(fn);
  return () => {
    if (!dependants.delete(fn) || dependants.size > 0 || fanouts.get(signal) !== fanout) return;
    fanouts.delete(signal);
    signal.removeEventListener('abort', fire);
  };
}

/**
 * A signal that aborts when any of the given ones does. `dispose()` stops following them, so
 * long-lived signals (the client's own) keep no trace of a finished watch.
 */
export function linkSignals(signals: readonly (AbortSignal | undefined)[]): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const controller = new AbortController();
  const already = present.find((s) => s.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const stops: (() => void)[] = [];
  const dispose = () => {
    for (const stop of stops.splice(0)) stop();
  };
  for (const signal of present) {
    stops.push(
      onAbort(signal, (reason) => {
        dispose();
        controller.abort(reason);
      }),
    );
  }
  return { signal: controller.signal, dispose };
}

/** The rejection an aborted operation settles with. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
