// Catches an operator UI shown the wrong powers or the wrong tenant's numbers: `auth.whoami`
// answers the calling key's own id, label, tenant, scopes and expiry (never another key's, and
// nothing without a valid key); `jobs.overview` counts only the caller's open jobs, by kind and
// state, with the queue's depth and oldest age per kind and the parked reasons; both refuse
// unknown input fields (strict) and write nothing.
import { createApiKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deadLetterJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('auth.whoami and jobs.overview', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('whoami describes the calling key and nothing else', async () => {
    const expires = new Date(Date.now() + 86_400_000);
    const viewer = await createApiKey(ctx().database.db, 'acme', {
      label: 'viewer',
      scopes: ['jobs:read'],
      expiresAt: expires,
    });
    expect(await f.http(viewer.key).auth.whoami.query()).toEqual({
      keyId: viewer.id,
      label: 'viewer',
      tenantId: 'acme',
      scopes: ['jobs:read'],
      expiresAt: expect.any(String),
    });
    const a = await f.http(f.keyA).auth.whoami.query();
    expect(a).toMatchObject({ keyId: f.keyIdA, tenantId: 'acme', label: null, expiresAt: null });
    expect(a.scopes).toContain('jobs:submit');
    expect((await f.http(f.keyB).auth.whoami.query()).tenantId).toBe('globex');
    expect((await errorOf(f.http(null).auth.whoami.query())).data).toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const metricsOnly = await createApiKey(ctx().database.db, 'acme', { scopes: ['metrics:read'] });
    expect((await errorOf(f.http(metricsOnly.key).auth.whoami.query())).data).toMatchObject({
      code: 'FORBIDDEN',
    });
    const before = await f.counts();
    const bad = await errorOf(f.http(f.keyA).auth.whoami.query({ keyId: 'someone-else' } as never));
    expect(bad.data).toMatchObject({ code: 'BAD_REQUEST' });
    expect(await f.counts()).toEqual(before);
  });

  it('overview counts the tenant’s open jobs, queues with their oldest age, parked reasons', async () => {
    const a = f.http(f.keyA);
    const t0 = Date.now();
    const queued = [];
    for (let i = 0; i < 3; i++) {
      queued.push((await a.jobs.submit.mutate({ kind: 'demo.echo', input: { text: `q${i}` } })).id);
    }
    const dead = (await a.jobs.submit.mutate({ kind: 'demo.copy', input: { text: 'd' } })).id;
    await deadLetterJob(ctx().database, dead, 'PROVIDER_OUTAGE');
    // Another tenant's jobs never show.
    await f.http(f.keyB).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'other' } });

    const o = await a.jobs.overview.query();
    expect(o.open).toEqual(
      expect.arrayContaining([
        { kind: 'demo.echo', state: 'queued', count: 3 },
        { kind: 'demo.copy', state: 'dead_lettered', count: 1 },
      ]),
    );
    expect(o.open.reduce((n, r) => n + r.count, 0)).toBe(4);
    const echo = o.queues.find((q) => q.kind === 'demo.echo');
    expect(echo?.depth).toBe(3);
    expect(Date.parse(echo!.oldestAt)).toBeGreaterThanOrEqual(t0 - 1000);
    expect(echo!.oldestAgeMs).toBeGreaterThanOrEqual(0);
    expect(o.waiting).toContainEqual({
      state: 'dead_lettered',
      reason: 'PROVIDER_OUTAGE',
      count: 1,
    });
    const b = await f.http(f.keyB).jobs.overview.query();
    expect(b.open).toEqual([{ kind: 'demo.echo', state: 'queued', count: 1 }]);
    expect((await errorOf(a.jobs.overview.query({ tenant: '*' } as never))).data).toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});
