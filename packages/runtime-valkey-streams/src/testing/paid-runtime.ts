// The Streams consumer of the worker's test children (`RUNTIME_MODULE=<this file>`, with
// REDIS_URL): the paid child (the crash matrix, the zombie and the chaos runs on this runtime)
// and the `xp.work` child (the cross-process invariant cases). Short timings, so a takeover fits
// in a test.
import type { PaidChildRuntime, WorkerChildRuntime } from '@sluice/worker/conformance';
import { createStreamsRuntime } from '../worker/create-streams-runtime.js';
import { renewScriptFromEnv } from './renew-script.js';

export const paidChildRuntime: PaidChildRuntime = (env) => (ctx) =>
  createStreamsRuntime({
    renewScript: renewScriptFromEnv(),
    ...ctx,
    redisUrl: env('REDIS_URL'),
    blockMs: 300,
    claimEveryMs: 200,
    heartbeatEveryMs: 500,
    // Off unless asked (the chaos soak runs maintenance as a production worker does).
    maintainEveryMs: Number(env('MAINTAIN_EVERY_MS', '0')),
    commandTimeoutMs: Number(env('COMMAND_TIMEOUT_MS', '2000')),
  });

/** Timings the cross-process tests tune through the environment (a blackhole, a Redis loss). */
export const workerChildRuntime: WorkerChildRuntime = (env) => {
  const num = (name: string, fallback: number) => Number(env(name, String(fallback)));
  return {
    consumer: (ctx) =>
      createStreamsRuntime({
        renewScript: renewScriptFromEnv(),
        ...ctx,
        redisUrl: env('REDIS_URL'),
        blockMs: num('BLOCK_MS', 500),
        watchdogMarginMs: num('WATCHDOG_MARGIN_MS', 1000),
        commandTimeoutMs: num('COMMAND_TIMEOUT_MS', 2000),
        claimEveryMs: num('CLAIM_EVERY_MS', 200),
        heartbeatEveryMs: 500,
        maintainEveryMs: 1000,
      }),
    worker: {
      unreadyAfterReadFailures: num('UNREADY_AFTER', 3),
      retryBackoff: { baseMs: 50, maxMs: 200 },
    },
  };
};
