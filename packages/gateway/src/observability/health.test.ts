import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGateway } from '../create-gateway.js';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import {
  errorOf,
  record,
  silentLogger,
  startGateway,
  testJobs,
  type GatewayFixture,
} from '../testing/fixture.js';

function metric(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describeEachDialect('health and metrics', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('serves /healthz and /readyz', async () => {
    expect((await fetch(`${f.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${f.url}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ready']);
  });

  it('turns /readyz unready when the database does not answer, and on shutdown', async () => {
    const broken = ctx().open();
    await broken.db.selectFrom('jobs').select('id').limit(1).execute(); // a handle in use…
    await broken.close(); // …then gone
    const g = createGateway({
      jobs: testJobs,
      database: broken,
      blobs: f.blobs,
      runtime: createEmbeddedDispatcher(broken),
      logger: silentLogger,
      uploads: { sweepIntervalMs: 0 },
    });
    try {
      expect((await g.app.request('/readyz')).status).toBe(503);
      expect((await g.app.request('/healthz')).status).toBe(200);
    } finally {
      await g.close().catch(() => {});
    }
    const h = await startGateway(ctx());
    await h.gateway.close();
    expect((await fetch(`${h.url}/readyz`)).status).toBe(503);
    await h.close();
  });

  it('exposes jobs by state, queue figures and gateway counters', async () => {
    const c = f.http(f.keyA);
    for (let i = 0; i < 3; i++) {
      await c.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: `m${i}` },
        idempotencyKey: `m${i}`,
      });
    }
    await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'm0' }, idempotencyKey: 'm0' });
    await errorOf(c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 1 } } as never));
    await fetch(`${f.url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}` },
      body: '12345',
    });
    const { client } = f.ws(f.keyA);
    const feed = record((h) => client.jobs.watchAll.subscribe({}, h));
    await waitFor(() => f.gateway.hub.listenerCount() === 1);

    const res = await fetch(`${f.url}/metrics`, {
      headers: { authorization: `Bearer ${f.adminKey}` },
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(metric(text, 'sluice_jobs{state="queued"}')).toBe(3);
    expect(metric(text, 'sluice_jobs{state="succeeded"}')).toBe(0);
    expect(metric(text, 'sluice_queue_depth')).toBe(3);
    expect(metric(text, 'sluice_queue_oldest_ready_age_seconds')).toBeGreaterThan(0);
    expect(metric(text, 'sluice_gateway_submits_total')).toBe(3);
    expect(metric(text, 'sluice_gateway_duplicates_total')).toBe(1);
    expect(metric(text, 'sluice_gateway_rejects_total{code="BAD_REQUEST"}')).toBe(1);
    expect(metric(text, 'sluice_gateway_upload_bytes_total')).toBe(5);
    expect(metric(text, 'sluice_gateway_active_subscriptions')).toBe(1);
    expect(text).toMatch(/# TYPE sluice_jobs gauge/);
    // Histograms and process figures come from prom-client, on this gateway's own registry.
    expect(metric(text, 'sluice_gateway_accept_seconds_count{outcome="accepted"}')).toBe(3);
    expect(metric(text, 'sluice_gateway_accept_seconds_count{outcome="duplicate"}')).toBe(1);
    expect(metric(text, 'sluice_gateway_accept_seconds_count{outcome="rejected"}')).toBe(undefined);
    expect(text).toMatch(/# TYPE sluice_gateway_accept_seconds histogram/);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    feed.stop();
  });
});
