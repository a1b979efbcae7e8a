// The Workers gateway after its engine dies mid-run: `wrangler dev` (workerd) is SIGKILLed, process
// tree and all, while two paid jobs run; started again on the same local state, the local
// Workflow engine keeps saying `running` for instances nothing runs any more. The cron pass's run
// recovery (run on demand through the test route, once a second as a cron trigger would) finds
// them quiet past the bound: the job with budget left is fenced (`running` → `queued` at its
// epoch), its instance restarted, and it succeeds under a new epoch with every provider call
// billed once (answered from the ledger on the second run); the job whose budget is spent is
// dead-lettered MAX_ATTEMPTS with the reason. Bounds of seconds (test-worker.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@sluice/testkit';
import { newApiKeyRow } from '../scripts/create-key.js';
import type { testJobs } from './test-worker.js';
import { startWranglerDev, type WranglerDev } from './wrangler-dev.js';

type Jobs = typeof testJobs;
let dev: WranglerDev | undefined;
let persistTo: string | undefined;
let provider: Server;
let providerUrl: string;
/** Requests the provider got, per `jobId/unitKey`: each is one billed call. */
const billed = new Map<string, number>();

beforeAll(async () => {
  provider = createServer((req, res) => {
    void (async () => {
      for await (const _ of req) void _;
      const key = `${String(req.headers['x-job-id'])}/${String(req.headers['x-unit-key'])}`;
      billed.set(key, (billed.get(key) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ text: `done ${key}` }));
    })();
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await dev?.stop();
  if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  await new Promise((r) => provider?.close(r));
});

const jobRow = async (id: string) =>
  (
    await (dev as WranglerDev).d1(
      `select state, epoch, attempts, reason from jobs where id = '${id}'`,
    )
  )[0] as { state: string; epoch: number; attempts: number; reason: string | null };

describe('run recovery on the Workers gateway after workerd is killed mid-run', () => {
  it('a killed run is restarted under a new epoch and succeeds, billed once; a spent budget is dead-lettered', async () => {
    dev = await startWranglerDev('wrangler.test.jsonc');
    const { key, insert } = newApiKeyRow('acme');
    await dev.d1(insert);
    const client: SluiceClient<Jobs> = createSluiceClient<Jobs>({
      url: dev.url,
      apiKey: key,
      subscriptions: 'sse',
      EventSource,
    });
    const input = { providerUrl, units: 3, holdMs: 8000 };
    const job = await client.submit('test.paid', input);
    const once = await client.submit('test.paid-once', input);
    // Every call billed and its answer recorded, every unit still holding: kill now. The bounds
    // are wide because CI runs this beside the other packages' suites on two cores, where
    // workerd's first Workflow steps have taken over a minute; the message names what was billed.
    await waitFor(() => billed.size === 6 || undefined, {
      timeoutMs: 150_000,
      intervalMs: 50,
      get message() {
        return `all six calls billed (billed: ${JSON.stringify([...billed.keys()])})`;
      },
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await job.status()).state).toBe('running');
    await client.close();
    await dev.kill();

    persistTo = dev.persistTo;
    dev = await startWranglerDev('wrangler.test.jsonc', { persistTo });
    const restarted = Date.now();
    // The engine does not know its run is gone.
    const instance = (await (await fetch(`${dev.url}/__test/instance?id=${job.id}`)).json()) as {
      status: string;
    };
    expect(instance.status).toBe('running');

    const after: SluiceClient<Jobs> = createSluiceClient<Jobs>({ url: dev.url, apiKey: key });
    const cron = `${dev.url}/__test/cron`;
    await waitFor(
      async () => {
        await fetch(cron);
        const [a, b] = await Promise.all([after.job(job.id).status(), after.job(once.id).status()]);
        return a.state === 'succeeded' && b.state === 'dead_lettered' ? true : undefined;
      },
      { timeoutMs: 150_000, intervalMs: 1000, message: 'the killed runs were not recovered' },
    );
    const recoveryMs = Date.now() - restarted;
    console.log(`recovered ${job.id} in ${recoveryMs} ms after workerd came back`);
    await after.close();
    const settled = { a: await jobRow(job.id), b: await jobRow(once.id) };

    // A new epoch: the dead attempt's (1) was fenced by the move back to queued.
    expect(settled.a).toMatchObject({ state: 'succeeded', epoch: 2, attempts: 2 });
    expect(settled.b.reason).toBe('MAX_ATTEMPTS');
    const events = await dev.d1(
      `select payload from job_events where job_id = '${once.id}' and type = 'dead_letter'`,
    );
    expect(String(events[0]?.payload)).toContain('its run ended without an outcome');
    // Each provider call billed once: the second run was answered from the ledger.
    for (const id of [job.id, once.id]) {
      for (const unit of ['u0', 'u1', 'u2']) expect(billed.get(`${id}/${unit}`)).toBe(1);
    }
    const ledger = await dev.d1(
      `select unit_key, outcome from provider_calls where job_id = '${job.id}' order by unit_key`,
    );
    expect(ledger.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    const result = await dev.d1(`select output from jobs where id = '${job.id}'`);
    expect(JSON.parse(String(result[0]?.output))).toEqual({
      answers: ['u0', 'u1', 'u2'].map((u) => `done ${job.id}/${u}`),
    });
  }, 480_000);
});
