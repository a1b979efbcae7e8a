// `client.onReconnect` fires when the WebSocket opens and again after every reconnect, so a
// consumer of the live feed (which does not replay) knows when to re-read what it may have
// missed; unsubscribing stops it.
import { WebSocket } from 'ws';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSluiceClient } from '../src/index.js';
import type { TestJobs } from './fixtures/jobs.js';
import { startStack, type Stack } from './fixtures/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('sqlite');
});
afterAll(async () => {
  await stack?.close();
});

it('onReconnect fires on the first open and after the server drops the socket', async () => {
  const client = createSluiceClient<TestJobs>({
    url: stack.url,
    apiKey: stack.apiKey,
    WebSocket,
    reconnect: { minMs: 20, maxMs: 100 },
  });
  const feed = new AbortController();
  let opens = 0;
  const off = client.onReconnect(() => opens++);
  try {
    const iterating = (async () => {
      for await (const _ of client.watchAll({ signal: feed.signal })) void _;
    })();
    await waitFor(() => opens === 1, { timeoutMs: 10_000, message: 'first open' });
    stack.gateway.websocket.terminateAll();
    await waitFor(() => opens === 2, { timeoutMs: 10_000, message: 'reopened' });
    off();
    stack.gateway.websocket.terminateAll();
    // The socket comes back (a job submitted now is seen by the feed) without another call.
    await waitFor(() => stack.gateway.websocket.count() > 0, {
      timeoutMs: 10_000,
      message: 'back',
    });
    expect(opens).toBe(2);
    feed.abort();
    await iterating;
  } finally {
    await client.close();
  }
});
