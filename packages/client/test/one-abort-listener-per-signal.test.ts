// Catches a client that adds an abort listener to its own long-lived signal (and to a caller's
// signal) for every awaited job: 300 `result()` calls over one client then stack 600 listeners
// on one AbortSignal, and Node warns `MaxListenersExceededWarning: 11 abort listeners added to
// [AbortSignal]` on Node 20 — a leak warning in every app that awaits many jobs. One listener per
// signal, fanned out to its dependants, keeps any number of awaits quiet.
import { setMaxListeners } from 'node:events';
import { UNLIMITED_RATE } from '@sluice/gateway';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSluiceClient } from '../src/index.js';
import type { TestJobs } from './fixtures/jobs.js';
import { startStack, type Stack } from './fixtures/stack.js';

const JOBS = 300;
let stack: Stack;

/**
 * Node 20 (a supported runtime) warns at the 11th listener on any AbortSignal; Node 22 and later
 * set no limit on signals. Every signal made during the test gets Node 20's limit.
 */
class Node20AbortController extends AbortController {
  constructor() {
    super();
    setMaxListeners(10, this.signal);
  }
}

beforeAll(async () => {
  // Room for 300 watches and result reads on one key and one socket: the limits are not what
  // this test is about.
  stack = await startStack('sqlite', {
    limits: {
      keyRate: UNLIMITED_RATE,
      tenantRate: UNLIMITED_RATE,
      requestsPerKey: 1_000,
      subscriptionsPerKey: 1_000,
      subscriptionsPerSocket: 1_000,
    },
  });
});
afterAll(async () => {
  await stack?.close();
});

it('300 concurrent result() calls over one client add no MaxListenersExceededWarning and all resolve', async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  const RealAbortController = globalThis.AbortController;
  globalThis.AbortController = Node20AbortController;
  const client = createSluiceClient<TestJobs>({ url: stack.url, apiKey: stack.apiKey, WebSocket });
  try {
    // Scheduled a little ahead, so every result() is still waiting (watching) when the jobs run;
    // half of them also pass one shared caller signal, which must not collect a listener each.
    const shared = new AbortController();
    const handles = await Promise.all(
      Array.from({ length: JOBS }, (_, i) =>
        client.submit('test.echo', { text: `job ${i}`, steps: 1 }, { delayMs: 1_500 }),
      ),
    );
    const outputs = await Promise.all(
      handles.map((h, i) => h.result(i % 2 ? { signal: shared.signal } : {})),
    );
    expect(outputs.map((o) => o.text)).toEqual(handles.map((_, i) => `job ${i}`));
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    expect(
      warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
    ).toEqual([]);
  } finally {
    process.off('warning', onWarning);
    globalThis.AbortController = RealAbortController;
    await client.close();
  }
});
