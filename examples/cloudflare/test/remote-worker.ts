// The Worker of the Node-gateway end-to-end test (wrangler.remote.jsonc): a Workflow whose job
// store is the Node gateway that dispatched the job (`gatewayStoreFromEnv`: SLUICE_GATEWAY_URL and
// SLUICE_CALLBACK_SECRET are passed as vars), and NO D1 binding at all — every read and write of
// a run has to go through the gateway. One test-only route stands in for Cloudflare's REST API
// create: the test's fake of that API forwards each create here, to the Workflow binding.
import { defineHandler } from '@sluice/worker/core';
import {
  createSluiceWorkflow,
  gatewayStoreFromEnv,
} from '@sluice/runtime-cloudflare-workflows/worker';
import { handlers } from '@sluice/example-quickstart/handlers';
import { paid, remoteJobs } from './remote-jobs.js';

const paidV1 = defineHandler(paid, {
  prepare: (ctx) => Array.from({ length: ctx.input.units }, (_, i) => ({ key: `u${i}`, input: i })),
  async execute(unit, ctx) {
    const answer = await ctx.providers.call('complete', (info) => ({
      method: 'POST',
      url: `${ctx.input.providerUrl}/complete`,
      headers: {
        'x-job-id': info.jobId,
        'x-unit-key': info.unitKey,
        'x-delay-ms': String(ctx.input.delayMs ?? 0),
      },
      body: { unit: unit.key },
    }));
    ctx.progress({ unit: unit.key });
    return String((answer.body as { text?: unknown }).text);
  },
  apply: (results) => results.map((r) => r.result),
  finalize: (answers) => ({ answers }),
});

const options = {
  jobs: remoteJobs,
  handlers: { ...handlers, 'test.paid': { v1: paidV1 } },
  version: 'v1',
  store: gatewayStoreFromEnv(),
  retry: { baseMs: 200 },
  // Two at a time: concurrent units share the run's one chain of fenced writes.
  unitConcurrency: 2,
};
export const RemoteV1 = createSluiceWorkflow(options);

interface Env {
  WF_V1: {
    create(o: { id: string; params: unknown }): Promise<{ id: string }>;
    get(id: string): Promise<{ status(): Promise<{ status: string }> }>;
  };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/healthz') return new Response('ok');
    if (url.pathname === '/__test/create' && request.method === 'POST') {
      const { id, params } = (await request.json()) as { id: string; params: unknown };
      await env.WF_V1.create({ id, params });
      return Response.json({ id });
    }
    if (url.pathname === '/__test/instance') {
      const instance = await env.WF_V1.get(url.searchParams.get('id') ?? '');
      return Response.json(await instance.status());
    }
    return new Response('not found', { status: 404 });
  },
};
