// Limits, each against a real gateway: per-key and per-tenant request rates (429 with
// Retry-After, sluiceCode RATE_LIMITED), failed-auth throttling per presented secret and per
// address (owner-not-locked-out-by-guesses.test.ts has the guesser cases), subscriptions per key
// and per socket, and `last_used_at` written in batches, not per request.

import { createApiKey, listApiKeys } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterEach, expect, it } from 'vitest';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';
import { waitFor } from '@sluice/testkit';
import { httpCall, openRawSocket, openSse, sseCall } from '../testing/raw-calls.js';
import { createTokenBuckets } from './token-bucket.js';

it('a token bucket allows its burst, then refills at its rate and says how long to wait', () => {
  const b = createTokenBuckets({ perSecond: 2, burst: 3 });
  expect([0, 1, 2, 3].map(() => b.take('k', 1000))).toEqual([0, 0, 0, 500]);
  expect(b.take('k', 1400)).toBe(100);
  expect(b.take('k', 1501)).toBe(0);
  expect(b.take('other', 1500)).toBe(0);
  const bounded = createTokenBuckets({ perSecond: 1, burst: 1 }, 2);
  for (const id of ['a', 'b', 'c']) bounded.take(id, 0);
  expect(bounded.size()).toBe(2);
});

describeEachDialect('limits', (ctx) => {
  let f: GatewayFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });
  const list = (g: GatewayFixture, key: string) => httpCall(g.url, 'jobs.list', 'query', key, {});

  it('per key: over the burst a 429 with Retry-After and sluiceCode RATE_LIMITED', async () => {
    const g = (f = await startGateway(ctx(), { limits: { keyRate: { perSecond: 1, burst: 3 } } }));
    const answers = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${g.url}/trpc/jobs.list?input=%7B%7D`, {
        headers: { authorization: `Bearer ${g.keyA}` },
      });
      answers.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
      if (i === 3) {
        expect(await res.json()).toMatchObject({
          error: { data: { code: 'TOO_MANY_REQUESTS', sluiceCode: 'RATE_LIMITED' } },
        });
      }
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(Number(answers[3]!.retryAfter)).toBeGreaterThanOrEqual(1);
    // The typed tRPC client sees the taxonomy's code; another key is unaffected.
    const e = await errorOf(g.http(g.keyA).jobs.list.query({}));
    expect(e.data).toMatchObject({ httpStatus: 429, sluiceCode: 'RATE_LIMITED' });
    expect((await list(g, g.keyB)).status).toBe(200);
    // Uploads share the same bucket and answer alike.
    const up = await fetch(`${g.url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${g.keyA}` },
      body: 'x',
    });
    expect(up.status).toBe(429);
    expect(Number(up.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('per tenant: all keys of a tenant share one bucket', async () => {
    const g = (f = await startGateway(ctx(), {
      limits: { tenantRate: { perSecond: 1, burst: 4 } },
    }));
    const second = (await createApiKey(ctx().database.db, 'acme')).key;
    const statuses = [];
    for (const key of [g.keyA, second, g.keyA, second, second]) {
      statuses.push((await list(g, key)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect((await list(g, g.keyB)).status).toBe(200);
  });

  it('failed auth: throttled per presented secret and per address; a verified key keeps working', async () => {
    const g = (f = await startGateway(ctx(), {
      auth: { cacheTtlMs: 5000 },
      limits: {
        failedAuthPerSecret: { perSecond: 0.01, burst: 3 },
        failedAuthPerAddress: { perSecond: 0.01, burst: 8 },
      },
    }));
    expect((await list(g, g.keyA)).status).toBe(200); // verified and cached
    const keyId = /^sk_(k[a-z2-7]{12})_/.exec(g.keyA)![1];
    const wrong = `sk_${keyId}_${'a'.repeat(32)}`;
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await list(g, wrong)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await list(g, g.keyA)).status).toBe(200);
    // The same wrong secret was refused from here three times: it is no longer looked up.
    // Per address: malformed keys count too, until every unverified key from here is refused.
    const more = [];
    for (let i = 0; i < 6; i++) more.push((await list(g, `nonsense-${i}`)).status);
    expect(more.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(more[5]).toBe(429);
    expect((await list(g, g.keyB)).status).toBe(429); // not cached yet: refused before lookup
    expect((await list(g, g.keyA)).status).toBe(200);
  });

  it('subscriptions: at most N per socket and M per key, over WebSocket and SSE alike', async () => {
    const g = (f = await startGateway(ctx(), {
      limits: { subscriptionsPerSocket: 2, subscriptionsPerKey: 3 },
    }));
    const ws = await openRawSocket(g.url, g.keyA);
    for (const id of [1, 2, 3]) {
      ws.send({ id, method: 'subscription', params: { path: 'jobs.watchAll', input: {} } });
    }
    const codeOf = async (id: number) =>
      ((await ws.waitFor((m) => (m as { id?: number }).id === id)) as {
        error?: { data?: { code?: string } };
        result?: { type?: string };
      }) ?? {};
    expect((await codeOf(1)).result?.type).toBe('started');
    expect((await codeOf(2)).result?.type).toBe('started');
    expect((await codeOf(3)).error?.data?.code).toBe('TOO_MANY_REQUESTS');
    // A third stream on SSE fits the per-key limit, a fourth does not.
    const third = await openSse(g.url, 'jobs.watchAll', g.keyA, {});
    await waitFor(() => g.gateway.gate.streamCount() === 3);
    const fourth = await sseCall(g.url, 'jobs.watchAll', g.keyA, {}, 1000);
    third.close();
    ws.close();
    expect(fourth.outcome).toBe('TOO_MANY_REQUESTS');
    // Refused before the stream starts: a 429 with Retry-After, not a 200 and an error event.
    expect(fourth.status).toBe(429);
    expect(fourth.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(third.text()).not.toContain('serialized-error');
  });

  it('an SSE subscription over the key rate is a 429 with Retry-After before any stream', async () => {
    const g = (f = await startGateway(ctx(), {
      limits: { keyRate: { perSecond: 0.01, burst: 1 } },
    }));
    const open = () =>
      fetch(`${g.url}/trpc/jobs.watchAll?input=%7B%7D`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${g.keyA}` },
      });
    const first = await open();
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await first.body?.cancel();
    const over = await open();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await over.json()).toMatchObject({
      error: {
        data: {
          code: 'TOO_MANY_REQUESTS',
          httpStatus: 429,
          path: 'jobs.watchAll',
          sluiceCode: 'RATE_LIMITED',
          retryAfterMs: expect.any(Number) as number,
        },
      },
    });
  });

  it('sockets: at most N open WebSockets per key; the next one is refused and closed', async () => {
    const g = (f = await startGateway(ctx(), { limits: { socketsPerKey: 2 } }));
    const open = [await openRawSocket(g.url, g.keyA), await openRawSocket(g.url, g.keyA)];
    for (const [i, s] of open.entries()) {
      s.send({ id: i + 1, method: 'subscription', params: { path: 'jobs.watchAll', input: {} } });
      expect(
        await s.waitFor((m) => (m as { result?: unknown }).result !== undefined),
      ).toBeDefined();
    }
    const third = await openRawSocket(g.url, g.keyA);
    third.send({ id: 9, method: 'query', params: { path: 'jobs.list', input: {} } });
    const refused = (await third.waitFor(
      (m) => (m as { error?: unknown }).error !== undefined,
    )) as { error?: { data?: { code?: string } } };
    expect(refused?.error?.data?.code).toBe('TOO_MANY_REQUESTS');
    expect(await third.closed).toBeGreaterThan(0);
    // Another key is not affected.
    const other = await openRawSocket(g.url, g.keyB);
    other.send({ id: 1, method: 'query', params: { path: 'jobs.list', input: {} } });
    expect(
      await other.waitFor((m) => (m as { result?: unknown }).result !== undefined),
    ).toBeDefined();
    for (const s of [...open, other]) s.close();
  });

  it('last_used_at is written in batches (not per request), and on close', async () => {
    const g = (f = await startGateway(ctx(), { limits: { lastUsedFlushMs: 60_000 } }));
    for (let i = 0; i < 5; i++) expect((await list(g, g.keyA)).status).toBe(200);
    const before = await listApiKeys(ctx().database.db, 'acme');
    expect(before.find((k) => k.id === g.keyIdA)?.lastUsedAt).toBeNull();
    await g.close();
    f = undefined;
    const after = await listApiKeys(ctx().database.db, 'acme');
    expect(after.find((k) => k.id === g.keyIdA)?.lastUsedAt).toMatch(/^\d{4}-/);
  });
});
