// The example as a user runs it: `wrangler dev` serving examples/cloudflare/wrangler.jsonc, a key
// created the way `npm run key` does, and the quickstart's job driven to success with the typed
// client over HTTP and SSE.
import { createSluiceClient } from '@sluice/client';
import type { jobs } from '@sluice/example-quickstart/jobs';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newApiKeyRow } from '../scripts/create-key.js';
import { startWranglerDev, type WranglerDev } from './wrangler-dev.js';

let dev: WranglerDev;
beforeAll(async () => {
  dev = await startWranglerDev();
}, 120_000);
afterAll(async () => dev?.stop());

it('runs demo.summarize under wrangler dev and answers the typed client', async () => {
  const { key, insert } = newApiKeyRow('demo');
  await dev.d1(insert);
  const client = createSluiceClient<typeof jobs>({
    url: dev.url,
    apiKey: key,
    subscriptions: 'sse',
    EventSource,
  });
  try {
    const text = 'Workers run this. Workflows keep each step. D1 holds the state.';
    const job = await client.submit('demo.summarize', { text });
    const seen: string[] = [];
    for await (const event of job.watch()) {
      seen.push(
        event.type === 'progress' ? 'progress' : `${event.type}:${'to' in event ? event.to : ''}`,
      );
    }
    expect(seen).toContain('progress');
    expect(seen.at(-1)).toBe('state:succeeded');
    const result = await job.result();
    expect(result.words).toBe(11);
    expect(result.summary).toContain('Workers run this.');
  } finally {
    await client.close();
  }
}, 120_000);
