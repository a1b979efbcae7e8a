// The NATS consumer of the worker's test children (`RUNTIME_MODULE=<this file>`, with NATS_URL
// and NATS_PREFIX): the paid child (the crash matrix, the killed-worker and chaos runs on this
// runtime) and the `xp.work` child (the cross-process invariant cases). Short timings, so a
// takeover fits in a test.
import type { PaidChildRuntime, WorkerChildRuntime } from '@sluice/worker/conformance';
import { createNatsConsumer } from '../worker/create-nats-consumer.js';

export const paidChildRuntime: PaidChildRuntime = (env) => (ctx) =>
  createNatsConsumer({
    ...ctx,
    url: env('NATS_URL'),
    prefix: env('NATS_PREFIX', 'sluice'),
    blockMs: 300,
  });

export const workerChildRuntime: WorkerChildRuntime = (env) => ({
  consumer: (ctx) =>
    createNatsConsumer({
      ...ctx,
      url: env('NATS_URL'),
      prefix: env('NATS_PREFIX', 'sluice'),
      blockMs: Number(env('BLOCK_MS', '300')),
    }),
  worker: { retryBackoff: { baseMs: 50, maxMs: 200 } },
});
