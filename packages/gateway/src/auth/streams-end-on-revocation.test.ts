// Revocation and expiry end every open stream — SSE on /trpc and subscriptions on a WebSocket —
// within 2 s, over real sockets. Before, only WebSockets were re-checked, so an SSE `watchAll`
// opened before `sluice keys revoke` kept delivering the tenant's events.

import { createApiKey, revokeApiKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { openRawSocket, openSse } from '../testing/raw-calls.js';

const BOUND_MS = 2000;

describeEachDialect('streams end on revocation and expiry', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    // The WebSocket-level re-check is turned off: the subscription must end by the one guard.
    f = await startGateway(ctx(), { websocket: { recheckMs: 0 } });
  });
  afterAll(async () => {
    await f?.close();
  });

  async function openBoth(key: string) {
    const sse = await openSse(f.url, 'jobs.watchAll', key, {});
    const ws = await openRawSocket(f.url, key);
    ws.send({ id: 1, method: 'subscription', params: { path: 'jobs.watchAll', input: {} } });
    expect(
      await ws.waitFor((m) => (m as { result?: { type?: string } }).result?.type === 'started'),
    ).toBeDefined();
    await waitFor(() => f.gateway.gate.streamCount() >= 2, { timeoutMs: 5000 });
    return { sse, ws };
  }

  async function endedWithin(both: Awaited<ReturnType<typeof openBoth>>, from: number) {
    const sseEnded = both.sse.ended.then(() => Date.now() - from);
    const wsEnded = both.ws
      .waitFor((m) => (m as { error?: unknown }).error !== undefined, BOUND_MS + 3000)
      .then((m) => (m === undefined ? Infinity : Date.now() - from));
    const [sseMs, wsMs] = await Promise.all([
      Promise.race([
        sseEnded,
        new Promise<number>((r) => setTimeout(() => r(Infinity), BOUND_MS + 3000)),
      ]),
      wsEnded,
    ]);
    return { sseMs, wsMs };
  }

  it('a revoked key’s SSE and WebSocket subscriptions end within 2 s with UNAUTHORIZED', async () => {
    const k = await createApiKey(ctx().database.db, 'acme');
    const both = await openBoth(k.key);
    // Still live: an event of the tenant reaches both.
    const before = await f.http(f.keyA).jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'before' },
    });
    await waitFor(() => both.sse.text().includes(before.id), { timeoutMs: 5000 });
    await both.ws.waitFor((m) => JSON.stringify(m).includes(before.id));
    const start = Date.now();
    await revokeApiKey(ctx().database.db, k.id);
    const { sseMs, wsMs } = await endedWithin(both, start);
    expect(sseMs).toBeLessThanOrEqual(BOUND_MS);
    expect(wsMs).toBeLessThanOrEqual(BOUND_MS);
    expect(both.sse.text()).toMatch(/event: serialized-error\ndata: .*"code":"UNAUTHORIZED"/);
    // Nothing the tenant does afterwards reaches the revoked key's streams.
    const after = await f.http(f.keyA).jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'after' },
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(both.sse.text()).not.toContain(after.id);
    expect(JSON.stringify(both.ws.messages)).not.toContain(after.id);
    await waitFor(() => f.gateway.gate.streamCount() === 0, { timeoutMs: 2000 });
    both.ws.close();
  }, 20_000);

  it('an expiring key’s SSE and WebSocket subscriptions end within 2 s of its expiry', async () => {
    const expiresAt = new Date(Date.now() + 1500);
    const k = await createApiKey(ctx().database.db, 'acme', { expiresAt });
    const both = await openBoth(k.key);
    const { sseMs, wsMs } = await endedWithin(both, expiresAt.getTime());
    expect(sseMs).toBeLessThanOrEqual(BOUND_MS);
    expect(wsMs).toBeLessThanOrEqual(BOUND_MS);
    expect(both.sse.text()).toMatch(/"code":"UNAUTHORIZED"/);
    both.ws.close();
  }, 20_000);
});
