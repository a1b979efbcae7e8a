// Shared provider limits for the guard: before a call writes its ledger row and sends, it takes a
// slot of the provider's semaphore (`maxConcurrent`) and a token of its bucket (`callsPerSecond`),
// both in the job database so every replica shares them (storage repos/limits.ts). With no room
// the call waits — polling with a short jittered pause, reporting the wait once — and past
// `maxWaitMs` it throws a LimitHeldError: the attempt ends having sent nothing, its unit's
// ledger untouched, and the job is given back with `run_after` and its attempt refunded (never
// failed, never in doubt, never a spent attempt), `waiting` naming the provider.
// Polls of a pollable call's external id are not limited (they never bill).
//
// A limit is the deployment's config (`limits.providers`) where it names the provider, else the
// strictest declared on any of the worker's job definitions' provider calls.

import {
  LimitHeldError,
  randomToken,
  type JobRegistry,
  type ProviderLimit,
  type ProviderLimits,
} from '@sluice/contracts';
import { acquireSlot, releaseSlot, takeToken, type SluiceDatabase } from '@sluice/storage/d1';

export const DEFAULT_LIMIT_WAIT_MS = 30_000;
/** How soon a job given back for a limit is due again. */
export const LIMIT_REQUEUE_MS = 1_000;

export interface LimitWait {
  reason: 'rate_limited' | 'concurrency_limited';
  /** `provider:<name>` */
  by: string;
}

export interface LimitObserver {
  /** A call found no room and started waiting. */
  waited(limit: string): void;
  /** A call waited `maxWaitMs` and its attempt gave the job back. */
  requeued(limit: string): void;
}

export interface ProviderLimiter {
  /**
   * Waits for room under `provider`'s limits; resolves with the release of the slot taken (a
   * no-op when the provider is not limited). Throws LimitHeldError past the wait bound, or the
   * signal's reason when the attempt is aborted.
   */
  acquire(
    provider: string,
    opts: { signal: AbortSignal; ttlMs: number; onWait(wait: LimitWait): void },
  ): Promise<() => Promise<void>>;
}

function stricter(a: ProviderLimit | undefined, b: ProviderLimit): ProviderLimit {
  if (!a) return b;
  const min = (x?: number, y?: number) =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y);
  const out: ProviderLimit = {};
  const maxConcurrent = min(a.maxConcurrent, b.maxConcurrent);
  const callsPerSecond = min(a.callsPerSecond, b.callsPerSecond);
  const maxWaitMs = min(a.maxWaitMs, b.maxWaitMs);
  if (maxConcurrent !== undefined) out.maxConcurrent = maxConcurrent;
  if (callsPerSecond !== undefined) out.callsPerSecond = callsPerSecond;
  if (maxWaitMs !== undefined) out.maxWaitMs = maxWaitMs;
  return out;
}

/** Provider → limit: the config's entry, else the strictest declared in the job definitions. */
export function resolveProviderLimits(
  jobs: JobRegistry,
  config: ProviderLimits = {},
): Map<string, ProviderLimit> {
  const out = new Map<string, ProviderLimit>();
  for (const job of Object.values(jobs))
    for (const call of Object.values(job.providers))
      if (call.limits) out.set(call.provider, stricter(out.get(call.provider), call.limits));
  for (const [provider, limit] of Object.entries(config)) out.set(provider, limit);
  return out;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', abort, { once: true });
  });

export function createProviderLimiter(deps: {
  database: SluiceDatabase;
  limits: ReadonlyMap<string, ProviderLimit>;
  observer?: LimitObserver | undefined;
  /** Pause between tries while waiting (default 20–60 ms, jittered). */
  pollMs?: number | undefined;
}): ProviderLimiter {
  const { database, limits } = deps;
  return {
    async acquire(provider, opts) {
      const limit = limits.get(provider);
      const noop = async () => {};
      if (!limit || (limit.maxConcurrent === undefined && limit.callsPerSecond === undefined))
        return noop;
      const key = `provider:${provider}`;
      const holder = randomToken();
      const maxWaitMs = limit.maxWaitMs ?? DEFAULT_LIMIT_WAIT_MS;
      const started = Date.now();
      let waited: LimitWait['reason'] | undefined;
      for (;;) {
        opts.signal.throwIfAborted();
        const slot =
          limit.maxConcurrent === undefined ||
          (await acquireSlot(database, {
            key,
            holder,
            max: limit.maxConcurrent,
            ttlMs: opts.ttlMs,
          }));
        const release =
          limit.maxConcurrent === undefined ? noop : () => releaseSlot(database, key, holder);
        // The token is taken only with a slot in hand, so a waiting call burns no rate.
        const token =
          slot &&
          (limit.callsPerSecond === undefined ||
            (await takeToken(database, { key, perSecond: limit.callsPerSecond })));
        if (slot && token) return release;
        if (slot) await release();
        if (!waited) {
          waited = slot ? 'rate_limited' : 'concurrency_limited';
          deps.observer?.waited(key);
          opts.onWait({ reason: waited, by: key });
        }
        if (Date.now() - started >= maxWaitMs) {
          deps.observer?.requeued(key);
          throw new LimitHeldError(
            `provider "${provider}" stayed at its limit for ${maxWaitMs} ms; the job waits and runs again`,
            LIMIT_REQUEUE_MS,
            {
              reason: 'provider',
              name: provider,
              by: waited === 'rate_limited' ? 'rate' : 'concurrency',
              since: new Date(started).toISOString(),
            },
          );
        }
        await sleep(deps.pollMs ?? 20 + Math.random() * 40, opts.signal);
      }
    },
  };
}
