// The e2e suite's Worker (wrangler.test.jsonc): the example's Worker with one more job kind,
// `test.unroutable`, whose only version (v3) has no Workflow binding, and test-only routes to
// look inside D1 and the Workflow engine from the Node test. Not part of the example.
import { defineJob, defineJobs } from '@sluice/contracts';
import { createWorkersGateway } from '@sluice/gateway/cloudflare';
import { createSluiceWorkflow } from '@sluice/worker/cloudflare';
import { handlers } from '@sluice/example-quickstart/handlers';
import { summarize } from '@sluice/example-quickstart/jobs';
import { z } from 'zod';

const unroutable = defineJob({
  kind: 'test.unroutable',
  versions: { current: 'v3' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ n: z.number().int() }),
});

export const testJobs = defineJobs(summarize, unroutable);

export const SummarizeV1 = createSluiceWorkflow({ jobs: testJobs, handlers, version: 'v1' });
export const SummarizeV2 = createSluiceWorkflow({ jobs: testJobs, handlers, version: 'v2' });

const gateway = createWorkersGateway({
  jobs: testJobs,
  workflows: { v1: 'WF_V1', v2: 'WF_V2' },
  eventPollMs: 100,
});

interface Env {
  DB: {
    prepare(sql: string): {
      bind(...v: unknown[]): { all(): Promise<{ results: unknown[] }>; run(): Promise<unknown> };
    };
  };
  WF_V1: { get(id: string): Promise<{ status(): Promise<{ status: string }> }> };
}

/** The DLQ consumer keeps what it received, so a test can see each dead letter's message. */
const DLQ_TABLE = 'create table if not exists test_dlq (body text)';

/** The envs this isolate has served: the gateway keeps one instance per env (its rate buckets, caches). */
const envs = new WeakSet<object>();

async function testRoute(url: URL, env: Env): Promise<Response | undefined> {
  if (url.pathname === '/__test/env-seen') {
    const seen = envs.has(env);
    envs.add(env);
    return Response.json({ seen });
  }
  if (url.pathname === '/__test/rows') {
    const count = async (table: string) =>
      (await env.DB.prepare(`select count(*) as n from ${table}`).bind().all()).results[0];
    return Response.json({
      jobs: await count('jobs'),
      events: await count('job_events'),
      outbox: await count('outbox'),
      schedules: await count('schedules'),
    });
  }
  if (url.pathname === '/__test/dlq') {
    await env.DB.prepare(DLQ_TABLE).bind().run();
    const rows = await env.DB.prepare('select body from test_dlq').bind().all();
    return Response.json(rows.results.map((r) => JSON.parse((r as { body: string }).body)));
  }
  if (url.pathname === '/__test/instance') {
    const instance = await env.WF_V1.get(url.searchParams.get('id') ?? '');
    return Response.json(await instance.status());
  }
  return undefined;
}

export default {
  async fetch(request: Request, env: Env, ctx: { waitUntil(p: Promise<unknown>): void }) {
    return (await testRoute(new URL(request.url), env)) ?? gateway.fetch(request, env, ctx);
  },
  async queue(batch: { messages: { body: unknown; ack(): void }[] }, env: Env): Promise<void> {
    await env.DB.prepare(DLQ_TABLE).bind().run();
    for (const m of batch.messages) {
      await env.DB.prepare('insert into test_dlq (body) values (?)')
        .bind(JSON.stringify(m.body))
        .run();
      m.ack();
    }
  },
};
