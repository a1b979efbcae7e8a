// Retention on the Workers gateway, in workerd (`wrangler dev`, test/test-worker.ts): the cron
// handler (`scheduled`, run on demand through a test route, as a cron trigger runs it) removes
// ended jobs past their retention from D1 with their events, asset rows and upload rows, and
// their bytes from R2; a held job, a job too young and a running one stay, rows and bytes; a
// job that ran through its Workflow expires with its idempotency key, and the same submit then
// creates a new job. The cron handler runs without run recovery here: the seeded rows have no
// Workflow instance behind them, and recovery would rightly take the `running` one for lost.
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKeyRow } from '../scripts/create-key.js';
import type { testJobs } from './test-worker.js';
import { startWranglerDev, type WranglerDev } from './wrangler-dev.js';

let dev: WranglerDev;
let acme: SluiceClient<typeof testJobs>;

const get = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${dev.url}${path}`)).json()) as T;
const rows = () => get<Record<string, { n: number }>>('/__test/rows');
const seed = (q: string) => get<{ id: string; keys: string[] }>(`/__test/seed-ended?${q}`);
const exists = async (key: string) =>
  (await get<{ exists: boolean }>(`/__test/blob?key=${encodeURIComponent(key)}`)).exists;

beforeAll(async () => {
  dev = await startWranglerDev('wrangler.test.jsonc');
  const { key, insert } = newApiKeyRow('acme');
  await dev.d1(insert);
  acme = createSluiceClient<typeof testJobs>({
    url: dev.url,
    apiKey: key,
    subscriptions: 'sse',
    EventSource,
  });
}, 240_000);
afterAll(async () => {
  await acme?.close();
  await dev?.stop();
});

describe('retention on the Workers gateway (D1 + R2, cron trigger)', () => {
  it('the cron pass removes expired ended jobs with their rows and bytes, and nothing else', async () => {
    const gone = [await seed('state=succeeded&ageDays=8'), await seed('state=failed&ageDays=31')];
    const kept = [
      await seed('state=succeeded&ageDays=6'),
      await seed('state=succeeded&ageDays=90&hold=1'),
      await seed('state=running&ageDays=900'),
    ];
    const before = await rows();
    for (const k of [...gone, ...kept].flatMap((j) => j.keys)) expect(await exists(k)).toBe(true);

    await get('/__test/cron?recovery=off');

    const after = await rows();
    expect(after.jobs!.n).toBe(before.jobs!.n - 2);
    expect(after.events!.n).toBe(before.events!.n - 2);
    expect(after.assets!.n).toBe(before.assets!.n - 2);
    expect(after.files!.n).toBe(before.files!.n - 2);
    expect(after.job_files!.n).toBe(before.job_files!.n - 2);
    expect(after.retention_blobs!.n).toBe(0);
    for (const k of gone.flatMap((j) => j.keys)) expect(await exists(k)).toBe(false);
    for (const k of kept.flatMap((j) => j.keys)) expect(await exists(k)).toBe(true);
  }, 60_000);

  it('an idempotency key expires with its job: the same submit then creates a new job', async () => {
    const submit = () =>
      acme.submit('demo.summarize', { text: 'One. Two.' }, { idempotencyKey: 'retention-e2e' });
    const first = await submit();
    await first.result();
    expect((await submit()).id).toBe(first.id);
    await get(`/__test/age?id=${first.id}&days=8`); // succeeded 8 days ago: past the 7-day default
    await get('/__test/cron?recovery=off');
    const again = await submit();
    expect(again.id).not.toBe(first.id);
    await again.result();
  }, 90_000);
});
