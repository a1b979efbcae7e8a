// The Workers gateway in workerd (`wrangler dev`, test/test-worker.ts), driven over HTTP and SSE by
// the typed client: submit → Workflow → watch → result; tenant isolation; bad input and refused
// features write nothing; an unroutable version is dead-lettered, never run elsewhere; cancel
// stores the cancel and terminates the instance; a delayed job's instance sleeps until it is due.
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@sluice/testkit';
import { newApiKeyRow } from '../scripts/create-key.js';
import type { testJobs } from './test-worker.js';
import { startWranglerDev, type WranglerDev } from './wrangler-dev.js';

type Jobs = typeof testJobs;
let dev: WranglerDev;
let acme: SluiceClient<Jobs>;
let other: SluiceClient<Jobs>;

async function clientFor(tenant: string): Promise<SluiceClient<Jobs>> {
  const { key, insert } = newApiKeyRow(tenant);
  await dev.d1(insert);
  return createSluiceClient<Jobs>({ url: dev.url, apiKey: key, subscriptions: 'sse', EventSource });
}

const rows = async () =>
  (await (await fetch(`${dev.url}/__test/rows`)).json()) as Record<string, { n: number }>;
const sentences = (n: number) =>
  Array.from({ length: n }, (_, i) => `Sentence number ${i} is here.`).join(' ');

beforeAll(async () => {
  dev = await startWranglerDev('wrangler.test.jsonc');
  acme = await clientFor('acme');
  other = await clientFor('globex');
}, 240_000);
afterAll(async () => {
  await acme?.close();
  await other?.close();
  await dev?.stop();
});

describe('the Workers gateway under workerd', () => {
  it('every request of an isolate gets the same env, so one gateway serves them all', async () => {
    await fetch(`${dev.url}/__test/env-seen`);
    const second = (await (await fetch(`${dev.url}/__test/env-seen`)).json()) as { seen: boolean };
    expect(second.seen).toBe(true);
  });

  it('submit → Workflow → SSE sees progress, then the terminal event, in order → result', async () => {
    const job = await acme.submit('demo.summarize', { text: sentences(3) });
    expect(job.id).toMatch(/^v1-/);
    const seqs: number[] = [];
    const types: string[] = [];
    for await (const event of job.watch()) {
      seqs.push(event.seq);
      types.push(event.type === 'state' ? `state:${event.to}` : event.type);
    }
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(types.filter((t) => t === 'progress').length).toBeGreaterThan(0);
    expect(types.indexOf('progress')).toBeLessThan(types.indexOf('state:succeeded'));
    expect(types.at(-1)).toBe('state:succeeded');
    expect((await job.result()).words).toBe(15);
    // a watch resumed after an event it saw replays exactly the rest, from D1
    const resumed: number[] = [];
    for await (const e of job.watch({ after: seqs[1] })) resumed.push(e.seq);
    expect(resumed).toEqual(seqs.slice(2));
  }, 90_000);

  it("another tenant's key sees NOT_FOUND for the job, its result and its events", async () => {
    const job = await acme.submit('demo.summarize', { text: sentences(1) });
    const foreign = other.job(job.id, 'demo.summarize');
    await expect(foreign.status()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(foreign.cancel()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const watching = (async () => {
      for await (const _ of foreign.watch()) void _;
    })();
    await expect(watching).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await job.result();
  }, 60_000);

  it('bad input and a priority are refused with typed errors and write nothing', async () => {
    const before = await rows();
    const untyped = acme as unknown as SluiceClient<Record<string, never>>;
    await expect(
      untyped.submit('demo.summarize' as never, { text: '' } as never),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(untyped.submit('nope' as never, {} as never)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      acme.submit('demo.summarize', { text: 'First.' }, { priority: 5 }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    // a feature this gateway cannot honour (no scheduler on Workers) is refused, typed
    await expect(
      acme.schedules.create('demo.summarize', { text: 'Tick.' }, { cron: '* * * * *' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/Workers/) });
    expect(await rows()).toEqual(before);
  }, 60_000);

  it('a version with no Workflow binding is dead-lettered VERSION_NOT_ROUTABLE, never run', async () => {
    const job = await acme.submit('test.unroutable', { n: 1 });
    expect(job.id).toMatch(/^v3-/);
    const view = await job.status();
    expect(view.state).toBe('dead_lettered');
    expect(JSON.stringify(view)).toContain('VERSION_NOT_ROUTABLE');
    await expect(job.result()).rejects.toMatchObject({ name: 'JobDeadLetteredError' });
    // Dead-lettered at submit, and announced on the DLQ queue as a dispatch-time one would be.
    const messages = await waitFor(
      async () => {
        const all = (await (await fetch(`${dev.url}/__test/dlq`)).json()) as { jobId: string }[];
        const mine = all.filter((m) => m.jobId === job.id);
        return mine.length > 0 ? mine : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, message: 'no DLQ message for the job' },
    );
    expect(messages).toEqual([
      {
        jobId: job.id,
        kind: 'test.unroutable',
        version: 'v3',
        tenantId: 'acme',
        reason: 'VERSION_NOT_ROUTABLE',
        detail: expect.any(String),
      },
    ]);
  }, 60_000);

  it('cancel stores the cancel in D1 and terminates the running instance', async () => {
    const job = await acme.submit('demo.summarize', { text: sentences(40) });
    // wait until the Workflow has reported progress: it is running
    for await (const event of job.watch()) if (event.type === 'progress') break;
    expect(await job.cancel()).toEqual({ id: job.id, state: 'cancelled' });
    const status = await waitFor(
      async () => {
        const s = (await (await fetch(`${dev.url}/__test/instance?id=${job.id}`)).json()) as {
          status: string;
        };
        return s.status === 'terminated' ? s : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(status.status).toBe('terminated');
    await expect(job.result()).rejects.toMatchObject({ name: 'JobCancelledError' });
    expect((await job.status()).state).toBe('cancelled');
  }, 90_000);

  it('a delayed job is scheduled, starts no earlier than its due time, then succeeds', async () => {
    const submitted = Date.now();
    const job = await acme.submit('demo.summarize', { text: sentences(2) }, { delayMs: 1500 });
    expect((await job.status()).state).toBe('scheduled');
    const started: string[] = [];
    for await (const event of job.watch()) {
      if (event.type === 'state' && event.to === 'running') started.push(event.at);
    }
    expect(started).toHaveLength(1);
    expect(Date.parse(started[0] as string)).toBeGreaterThanOrEqual(submitted + 1500);
    expect((await job.result()).words).toBe(10);
  }, 90_000);

  it('a delayed job cancelled while scheduled never runs: its instance is terminated', async () => {
    const job = await acme.submit('demo.summarize', { text: sentences(1) }, { delayMs: 1500 });
    expect(await job.cancel()).toEqual({ id: job.id, state: 'cancelled' });
    const instance = async () =>
      (await (await fetch(`${dev.url}/__test/instance?id=${job.id}`)).json()) as { status: string };
    await waitFor(async () => ((await instance()).status === 'terminated' ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    await new Promise((r) => setTimeout(r, 2500));
    expect((await job.status()).state).toBe('cancelled');
    const events: string[] = [];
    for await (const e of job.watch()) if (e.type === 'state') events.push(e.to);
    expect(events).not.toContain('running');
  }, 60_000);
});
