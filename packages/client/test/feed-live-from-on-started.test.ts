// `watchAll({ onStarted })` is called once the gateway has the feed's subscription in place, on
// the first start and again after the socket is dropped and the feed re-started: a job submitted
// from that moment on is always seen by the feed. A list read there (useJobs does) therefore
// misses nothing between the read and the feed.
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

it('every job submitted from onStarted on reaches the feed, also after a dropped socket', async () => {
  const client = createSluiceClient<TestJobs>({
    url: stack.url,
    apiKey: stack.apiKey,
    WebSocket,
    reconnect: { minMs: 20, maxMs: 100 },
  });
  const submitter = createSluiceClient<TestJobs>({ url: stack.url, apiKey: stack.apiKey });
  const feed = new AbortController();
  const seen = new Set<string>();
  const submitted: string[] = [];
  let starts = 0;
  const onStarted = () => {
    starts++;
    void submitter
      .submit('test.echo', { text: `start ${starts}`, steps: 1 })
      .then((handle) => submitted.push(handle.id));
  };
  try {
    const iterating = (async () => {
      for await (const item of client.watchAll({ signal: feed.signal, onStarted })) {
        seen.add(item.event.jobId);
      }
    })();
    await waitFor(() => submitted.length === 1 && seen.has(submitted[0]!), {
      timeoutMs: 10_000,
      message: 'the job submitted at the first start is in the feed',
    });
    stack.gateway.websocket.terminateAll();
    await waitFor(() => submitted.length === 2 && seen.has(submitted[1]!), {
      timeoutMs: 10_000,
      message: 'the job submitted at the re-start is in the feed',
    });
    expect(starts).toBe(2);
    feed.abort();
    await iterating;
  } finally {
    await client.close();
    await submitter.close();
  }
});
