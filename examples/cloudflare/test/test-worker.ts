// The e2e suite's Worker (wrangler.test.jsonc): the example's Worker with one more job kind,
// `test.unroutable`, whose only version (v3) has no Workflow binding, and test-only routes to
// look inside D1, R2 and the Workflow engine from the Node test, to seed ended jobs and to run
// the cron handler (`scheduled`) on demand; the paid jobs of the crash-recovery test
// (crash-jobs.ts), with run-recovery bounds of seconds, not minutes. Not part of the example.
import { defineJob, defineJobs } from '@sluice/contracts';
import { createWorkersGateway } from '@sluice/gateway/cloudflare';
import { createSluiceWorkflow } from '@sluice/runtime-cloudflare-workflows/worker';
import { workflowsOnWorkers } from '@sluice/runtime-cloudflare-workflows/workers';
import { handlers } from '@sluice/example-quickstart/handlers';
import { summarize } from '@sluice/example-quickstart/jobs';
import { z } from 'zod';
import { paid, paidHandlers, paidOnce } from './crash-jobs.js';

const unroutable = defineJob({
  kind: 'test.unroutable',
  versions: { current: 'v3' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ n: z.number().int() }),
});

export const testJobs = defineJobs(summarize, unroutable, paid, paidOnce);
const testHandlers = { ...handlers, ...paidHandlers };

export const SummarizeV1 = createSluiceWorkflow({
  jobs: testJobs,
  handlers: testHandlers,
  version: 'v1',
});
export const SummarizeV2 = createSluiceWorkflow({
  jobs: testJobs,
  handlers: testHandlers,
  version: 'v2',
});

const gatewayOptions = {
  jobs: testJobs,
  runtime: workflowsOnWorkers({ workflows: { v1: 'WF_V1', v2: 'WF_V2' } }),
  eventPollMs: 100,
};
const gateway = createWorkersGateway({
  ...gatewayOptions,
  // Seconds, so a test sees a dead run recovered (the cron route runs only when a test calls it);
  // the stuck bound stays above the longest quiet stretch of a live test run (8 s holds).
  recovery: { quietMs: 1000, stuckMs: 20_000 },
});
/**
 * The same gateway without run recovery, for `/__test/cron?recovery=off`: the retention test
 * seeds rows with no Workflow instance behind them (a `running` one among them), which run
 * recovery would rightly treat as lost runs.
 */
const retentionOnly = createWorkersGateway({ ...gatewayOptions, recovery: false });

interface Env {
  DB: {
    prepare(sql: string): {
      bind(...v: unknown[]): { all(): Promise<{ results: unknown[] }>; run(): Promise<unknown> };
    };
  };
  BLOBS: { put(key: string, body: string): Promise<unknown>; head(key: string): Promise<unknown> };
  WF_V1: { get(id: string): Promise<{ status(): Promise<{ status: string }> }> };
}

/** An ended job as retention finds it: an event row, a published asset and an upload, with bytes. */
async function seedEnded(env: Env, url: URL): Promise<Response> {
  const state = url.searchParams.get('state') ?? 'succeeded';
  const at = new Date(Date.now() - Number(url.searchParams.get('ageDays') ?? '0') * 86_400_000);
  const hold = url.searchParams.get('hold') === '1' ? 1 : 0;
  const id = `v1-${crypto.randomUUID().replace(/-/g, '').slice(0, 26)}`;
  const file = `f_${crypto
    .randomUUID()
    .replace(/[^a-f]/g, '')
    .padEnd(26, 'a')
    .slice(0, 26)}`;
  const tenant = url.searchParams.get('tenant') ?? 'acme';
  const asset = `t/${tenant}/j/${id}/assets/u0/out.txt`;
  const upload = `t/${tenant}/uploads/${file}`;
  const iso = at.toISOString();
  const run = (sql: string, ...v: unknown[]) =>
    env.DB.prepare(sql)
      .bind(...v)
      .run();
  await env.BLOBS.put(asset, 'asset bytes');
  await env.BLOBS.put(upload, 'upload bytes');
  await run(
    `insert into files (id, tenant_id, blob_key, size, sha256, content_type, created_at)
     values (?, ?, ?, 12, 'x', 'text/plain', ?)`,
    file,
    tenant,
    upload,
    iso,
  );
  await run(
    `insert into jobs (id, tenant_id, kind, version, state, input, input_hash, file_ids,
       max_attempts, last_seq, created_at, updated_at, finished_at, hold)
     values (?, ?, 'demo.summarize', 'v1', ?, '{}', 'h', ?, 3, 1, ?, ?, ?, ?)`,
    id,
    tenant,
    state,
    JSON.stringify([file]),
    iso,
    iso,
    iso,
    hold,
  );
  await run(
    `insert into job_events (job_id, tenant_id, kind, seq, type, payload, created_at)
     values (?, ?, 'demo.summarize', 1, 'state', '{}', ?)`,
    id,
    tenant,
    iso,
  );
  await run(
    `insert into assets (final_key, job_id, tenant_id, unit_key, name, size, sha256, content_type,
       attempt_id, created_at) values (?, ?, ?, 'u0', 'out.txt', 11, 'x', 'text/plain', 'a1', ?)`,
    asset,
    id,
    tenant,
    iso,
  );
  return Response.json({ id, keys: [asset, upload] });
}

/** Runs the Worker's cron handler as a cron trigger would, and answers once its work is done. */
async function runCron(env: Env, url: URL): Promise<Response> {
  const pending: Promise<unknown>[] = [];
  const g = url.searchParams.get('recovery') === 'off' ? retentionOnly : gateway;
  await g.scheduled({ cron: '* * * * *' }, env, { waitUntil: (p) => void pending.push(p) });
  await Promise.all(pending);
  return Response.json({ ok: true });
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
      assets: await count('assets'),
      files: await count('files'),
      job_files: await count('job_files'),
      retention_blobs: await count('retention_blobs'),
    });
  }
  if (url.pathname === '/__test/seed-ended') return seedEnded(env, url);
  if (url.pathname === '/__test/cron') return runCron(env, url);
  if (url.pathname === '/__test/blob') {
    return Response.json({
      exists: (await env.BLOBS.head(url.searchParams.get('key') ?? '')) !== null,
    });
  }
  if (url.pathname === '/__test/age') {
    const at = new Date(
      Date.now() - Number(url.searchParams.get('days')) * 86_400_000,
    ).toISOString();
    await env.DB.prepare('update jobs set updated_at = ? where id = ?')
      .bind(at, url.searchParams.get('id'))
      .run();
    return Response.json({ ok: true });
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
