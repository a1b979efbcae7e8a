// The NATS consumer of the worker's paid child (`RUNTIME_MODULE=<this file>`, with NATS_URL and
// NATS_PREFIX): the killed-worker and chaos runs on this runtime. Short timings, so a takeover fits
// in a test.
import type { PaidChildRuntime } from '@sluice/worker/conformance';
import { createNatsConsumer } from '../worker/create-nats-consumer.js';

export const paidChildRuntime: PaidChildRuntime = (env) => (ctx) =>
  createNatsConsumer({
    ...ctx,
    url: env('NATS_URL'),
    prefix: env('NATS_PREFIX', 'sluice'),
    blockMs: 300,
  });
