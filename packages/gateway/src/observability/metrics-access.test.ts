// /metrics shows every tenant's activity: on the API port only a key with the `metrics:read` or
// the `admin` scope reads it; with `metricsAccess: 'listener'` it is not on the API port at all,
// only on its own listener. A `metrics:read` key is what a Prometheus scraper holds: before the
// scope existed, scraping needed a full `admin` key. It reads /metrics and nothing else.

import { createApiKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveMetrics } from '../serve.js';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('metrics access', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f?.close();
  });
  const get = (url: string, key?: string) =>
    fetch(`${url}/metrics`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

  it('needs the metrics:read or admin scope on the API port', async () => {
    expect((await get(f.url)).status).toBe(401);
    expect((await get(f.url, f.keyA)).status).toBe(403);
    const res = await get(f.url, f.adminKey);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^sluice_gateway_active_subscriptions \d+$/m);
  });

  it('a metrics:read key scrapes /metrics and nothing else', async () => {
    const scraper = await createApiKey(ctx().database.db, 'acme', { scopes: ['metrics:read'] });
    const res = await get(f.url, scraper.key);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^sluice_gateway_active_subscriptions \d+$/m);
    const auth = { authorization: `Bearer ${scraper.key}` };
    const refused = [
      await fetch(`${f.url}/trpc/jobs.list?input=%7B%7D`, { headers: auth }),
      await fetch(`${f.url}/trpc/deadLetters.list?input=%7B%7D`, { headers: auth }),
      await fetch(`${f.url}/v1/uploads`, { method: 'POST', headers: auth, body: 'x' }),
      await fetch(`${f.url}/v1/files/f_aaaaaaaaaaaaaaaaaaaaaaaaaa`, { headers: auth }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403]);
  });

  it('with a separate listener, is off the API port and open on its own', async () => {
    const g = await startGateway(ctx(), { metricsAccess: 'listener' });
    const listener = await serveMetrics(g.gateway, { port: 0 });
    try {
      const admin = await createApiKey(ctx().database.db, 'acme', { scopes: ['admin'] });
      expect((await get(g.url, admin.key)).status).toBe(404);
      const res = await get(listener.url);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('sluice_gateway_active_subscriptions');
    } finally {
      await listener.close();
      await g.close();
    }
  });
});
