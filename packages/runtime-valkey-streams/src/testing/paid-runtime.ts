// The Streams consumer of the worker's paid child (`RUNTIME_MODULE=<this file>`, with REDIS_URL):
// the crash matrix, the zombie and the chaos runs on this runtime. Short timings, so a takeover
// fits in a test.
import type { PaidChildRuntime } from '@sluice/worker/conformance';
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
