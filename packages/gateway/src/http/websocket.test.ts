// WebSocket guards: never an anonymous connection, a deadline for the first message, a frame
// cap, and the Origin allow-list checked before the upgrade (Cross-Site WebSocket Hijacking).

import { createApiKey, revokeApiKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { sleep } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

interface Outcome {
  status?: number;
  closeCode?: number;
  messages: unknown[];
  openedFor: number;
}

/** Opens a raw socket, optionally sends frames, and records how it ends. */
function probe(
  url: string,
  opts: { origin?: string; send?: string[]; path?: string; headers?: Record<string, string> } = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    const messages: unknown[] = [];
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${opts.path ?? '/ws'}`, {
      headers: { ...(opts.origin ? { origin: opts.origin } : {}), ...opts.headers },
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode, messages, openedFor: 0 });
      ws.terminate();
    });
    ws.on('error', () => {});
    ws.on('open', () => {
      for (const frame of opts.send ?? []) ws.send(frame);
    });
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
    ws.on('close', (code) =>
      resolve({ closeCode: code, messages, openedFor: Date.now() - started }),
    );
  });
}

describeEachDialect('websocket guards', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), {
      origins: ['https://app.example.com'],
      websocket: { handshakeTimeoutMs: 300, recheckMs: 100 },
      auth: { cacheTtlMs: 100 },
    });
  });
  afterAll(async () => {
    await f.close();
  });

  it('closes a connection that does not announce connectionParams', async () => {
    const r = await probe(f.url);
    expect(r.messages[0]).toMatchObject({ error: { data: { code: 'UNAUTHORIZED' } } });
    expect(r.closeCode).toBeDefined();
  });

  it('closes a connection whose params carry no key or a bad key', async () => {
    for (const data of [{}, { apiKey: 'sk_nope' }, { apiKey: 42 }]) {
      const r = await probe(`${f.url}`, {
        path: '/ws?connectionParams=1',
        send: [JSON.stringify({ method: 'connectionParams', data })],
      });
      // tRPC itself refuses params that are not strings (PARSE_ERROR); either way: closed.
      const code = (r.messages[0] as { error: { data: { code: string } } }).error.data.code;
      expect(['UNAUTHORIZED', 'PARSE_ERROR']).toContain(code);
      expect(r.closeCode).toBeDefined();
    }
  });

  it('closes a connection that never sends its first message after the handshake timeout', async () => {
    const r = await probe(f.url, { path: '/ws?connectionParams=1' });
    expect(r.closeCode).toBe(4401);
    expect(r.openedFor).toBeGreaterThanOrEqual(250);
    expect(r.openedFor).toBeLessThan(3000);
  });

  it('refuses frames over maxPayload', async () => {
    const r = await probe(f.url, {
      path: '/ws?connectionParams=1',
      send: [JSON.stringify({ method: 'connectionParams', data: { apiKey: 'x'.repeat(70_000) } })],
    });
    expect(r.closeCode).toBe(1009);
  });

  it('answers 403 to a browser Origin outside the list, before any upgrade', async () => {
    expect((await probe(f.url, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await probe(f.url, { origin: 'null' })).status).toBe(403);
    expect((await probe(f.url, { path: '/elsewhere' })).status).toBe(404);
    // DNS rebinding: Origin equals Host, and both name the attacker's domain.
    const port = new URL(f.url).port;
    const rebound = await probe(f.url, {
      origin: `http://evil.example:${port}`,
      headers: { host: `evil.example:${port}` },
    });
    expect(rebound.status).toBe(403);
    // The gateway's own address and port, but another scheme: another origin.
    for (const scheme of ['https', 'ws', 'ftp']) {
      expect((await probe(f.url, { origin: `${scheme}://127.0.0.1:${port}` })).status).toBe(403);
    }
    expect((await probe(f.url, { origin: 'http://app.example.com' })).status).toBe(403);
    // Listed, same-origin and Origin-less clients get through to authentication.
    for (const origin of ['https://app.example.com', f.url, undefined]) {
      const r = await probe(f.url, origin ? { origin } : {});
      expect(r.status).toBeUndefined();
      expect(r.messages[0]).toMatchObject({ error: { data: { code: 'UNAUTHORIZED' } } });
    }
  });

  it('closes open sockets of a revoked key within the cache TTL and the re-check', async () => {
    const key = await createApiKey(ctx().database.db, 'acme');
    const r = await new Promise<{ code: number; after: number }>((resolve) => {
      const ws = new WebSocket(`${f.url.replace(/^http/, 'ws')}/ws?connectionParams=1`);
      let revokedAt = 0;
      ws.on('open', () => {
        ws.send(JSON.stringify({ method: 'connectionParams', data: { apiKey: key.key } }));
        ws.send(
          JSON.stringify({
            id: 1,
            method: 'subscription',
            params: { path: 'jobs.watchAll', input: {} },
          }),
        );
      });
      ws.on('message', (data: Buffer) => {
        // The feed started, so the socket is authenticated: now revoke its key.
        const msg = JSON.parse(data.toString()) as { result?: { type?: string } };
        if (msg.result?.type === 'started' && revokedAt === 0) {
          revokedAt = Date.now();
          void revokeApiKey(ctx().database.db, key.id);
        }
      });
      ws.on('close', (code) => resolve({ code, after: Date.now() - revokedAt }));
    });
    expect(r.code).toBe(4403);
    expect(r.after).toBeLessThan(1500);
  });

  it('denies the next subscription of a revoked key even while its socket stays open', async () => {
    // Without the periodic re-check, the per-call check alone must stop the key.
    const g = await startGateway(ctx(), {
      websocket: { recheckMs: 0 },
      auth: { cacheTtlMs: 100 },
    });
    try {
      const key = await createApiKey(ctx().database.db, 'acme');
      const { id } = await g
        .http(key.key)
        .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'r' } });
      const { client } = g.ws(key.key);
      const first = await new Promise<number>((resolve, reject) => {
        const sub = client.jobs.watch.subscribe(
          { id },
          {
            onData: (d) => {
              sub.unsubscribe();
              resolve(d.data.seq);
            },
            onError: reject,
          },
        );
      });
      expect(first).toBe(1);
      await revokeApiKey(ctx().database.db, key.id);
      await sleep(150);
      const denied = await errorOf(
        new Promise((resolve, reject) => {
          client.jobs.watch.subscribe({ id }, { onData: resolve, onError: reject });
        }),
      );
      expect(denied.data).toMatchObject({ code: 'UNAUTHORIZED' });
    } finally {
      await g.close();
    }
  });
});
