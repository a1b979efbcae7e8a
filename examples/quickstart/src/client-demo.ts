// `npm run demo:client`: submit demo.summarize, print live events, print the typed result. Node
// 22+ has a WebSocket of its own, so the client needs no `ws` here.
import { createSluiceClient } from '@sluice/client';
import type { Jobs } from './jobs.js';

const apiKey = process.env.SLUICE_API_KEY;
if (!apiKey) throw new Error('set SLUICE_API_KEY to the key `npm start` printed');

const client = createSluiceClient<Jobs>({
  url: process.env.SLUICE_URL ?? 'http://127.0.0.1:3000',
  apiKey,
});
try {
  const job = await client.submit('demo.summarize', {
    text: 'Sluice runs long jobs off the request path. Retries never pay twice. You can watch every step live.',
  });
  console.log(`submitted ${job.id}`);
  for await (const event of job.watch()) {
    const detail =
      event.type === 'progress'
        ? `${event.data.done}/${event.data.total} ${event.data.sentence}`
        : 'to' in event
          ? event.to
          : '';
    console.log(`#${event.seq} ${event.type} ${detail}`);
  }
  const { summary, words } = await job.result();
  console.log(`summary: ${summary}\nwords: ${words}`);
} finally {
  await client.close();
}
