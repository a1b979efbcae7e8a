// A watcher whose socket dies mid-job reconnects and resumes after its last event: no gap, no
// duplicate, on both dialects. Catches a client that restarts from the beginning (duplicates),
// from "now" (a gap), or never comes back (a hang).
import { WebSocket } from 'ws';
import { expect, it } from 'vitest';
import { createSluiceClient, type JobWatchEvent } from '../src/index.js';
import type { TestJobs } from './fixtures/jobs.js';
import { describeStack, type Stack } from './fixtures/stack.js';

type EchoEvent = JobWatchEvent<TestJobs['test.echo']>;

async function watchThrough(
  stack: Stack,
  disrupt: (progressSeen: number) => Promise<void> | void,
): Promise<EchoEvent[]> {
  const client = createSluiceClient<TestJobs>({
    url: stack.url,
    apiKey: stack.apiKey,
    WebSocket,
    reconnect: { minMs: 20, maxMs: 200 },
  });
  try {
    const handle = await client.submit('test.echo', { text: 'resume', steps: 12, stepMs: 100 });
    const events: EchoEvent[] = [];
    let progressSeen = 0;
    for await (const event of handle.watch()) {
      events.push(event);
      if (event.type === 'progress') await disrupt(++progressSeen);
    }
    expect(await handle.result()).toEqual({ text: 'resume', steps: 12 });
    return events;
  } finally {
    await client.close();
  }
}

function expectComplete(events: EchoEvent[]): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const steps = events.flatMap((e) => (e.type === 'progress' ? [e.data.step] : []));
  expect(steps).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  expect(events.at(-1)).toMatchObject({ type: 'state', to: 'succeeded' });
}

describeStack('watch resumes', (stack) => {
  it('after the server kills the socket mid-job (twice)', async () => {
    let kills = 0;
    const events = await watchThrough(stack(), (seen) => {
      if (seen === 2 || seen === 6) {
        expect(stack().gateway.websocket.count()).toBeGreaterThan(0);
        stack().gateway.websocket.terminateAll();
        kills++;
      }
    });
    expect(kills).toBe(2);
    expectComplete(events);
  });

  it('across a gateway restart on the same port', async () => {
    const events = await watchThrough(stack(), async (seen) => {
      if (seen === 3) await stack().restartGateway();
    });
    expectComplete(events);
  });
});
