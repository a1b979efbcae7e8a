// The Workers gateway under workerd (`wrangler dev`) shares the Node gateway's gatekeeper and
// tRPC handler, so its failed-auth throttle and its SSE refusals must behave the same: a wrong
// secret replayed at a key's id is refused lookups after its burst (429 + Retry-After, over HTTP
// and over SSE before any stream starts), while the key's owner keeps working — also after its
// auth-cache entry has lapsed. Before, failures were counted per key id, so the owner's next
// uncached request was a 429 too, and a refused SSE subscription was a 200 and an error event.
import { sleep } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKeyRow } from '../scripts/create-key.js';
import { startWranglerDev, type WranglerDev } from './wrangler-dev.js';

let dev: WranglerDev;
let owner: string;

beforeAll(async () => {
  dev = await startWranglerDev('wrangler.test.jsonc');
  const row = newApiKeyRow('acme');
  await dev.d1(row.insert);
  owner = row.key;
}, 240_000);
afterAll(async () => {
  await dev?.stop();
});

const list = (key: string) =>
  fetch(`${dev.url}/trpc/jobs.list?input=%7B%7D`, { headers: { authorization: `Bearer ${key}` } });
const watch = (key: string) =>
  fetch(`${dev.url}/trpc/jobs.watchAll?input=%7B%7D`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${key}` },
  });

describe('the Workers gateway throttles failed authentication like the Node one', () => {
  it('a replayed wrong secret is cut after its burst on HTTP and SSE; the owner keeps working', async () => {
    expect((await list(owner)).status).toBe(200);
    const wrong = `${owner.slice(0, -32)}${'a'.repeat(32)}`;
    const statuses: number[] = [];
    // The default burst per presented secret is 10.
    for (let i = 0; i < 11; i++) {
      const res = await list(wrong);
      await res.body?.cancel();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429]);
    const sse = await watch(wrong);
    expect(sse.status).toBe(429);
    expect(Number(sse.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await sse.json()).toMatchObject({
      error: { data: { code: 'TOO_MANY_REQUESTS', sluiceCode: 'RATE_LIMITED' } },
    });
    // Past the auth cache's 2 s, the owner is looked up again: not locked out by the guesses.
    await sleep(2_100);
    expect((await list(owner)).status).toBe(200);
    const stream = await watch(owner);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await stream.body?.cancel();
  }, 60_000);
});
