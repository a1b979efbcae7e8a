// Catches a guard that cannot tell "never sent" from "sent": every failure before the connection
// exists must be `never_sent` (safe to retry), every failure after it left must be one of the
// ambiguous kinds (never retried blindly). Real sockets: the fake provider, a closed port, a
// server that drops the connection after reading the request, and TLS to a plain-text port.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFakeProviderServer,
  FAKE_PROVIDER_PATHS,
  freePort,
  type FakeProviderServer,
} from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyStatus, sendRequest } from './send-request.js';
import type { ProviderRequest } from './types.js';

let provider: FakeProviderServer;
let dir: string;
const headers = { 'x-job-id': 'job-1', 'x-unit-key': 'u0' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-send-'));
  provider = await createFakeProviderServer({ ledgerPath: join(dir, 'ledger.jsonl') });
});
afterAll(async () => {
  await provider.close();
  rmSync(dir, { recursive: true, force: true });
});

const sync = (extra: Record<string, string> = {}): ProviderRequest => ({
  method: 'POST',
  url: `${provider.url}${FAKE_PROVIDER_PATHS.sync}`,
  headers: { ...headers, ...extra },
  body: { prompt: 'a cat' },
});

/** A TCP server that reads the whole request, then destroys the socket without answering. */
async function dropAfterRead(): Promise<{ url: string; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    socket.on('data', (chunk) => {
      if (chunk.toString().includes('\r\n\r\n')) socket.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/x`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('sendRequest', () => {
  it('answers a 200 with the parsed JSON body and lower-case headers', async () => {
    const r = await sendRequest(sync(), { timeoutMs: 5000 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.answer.status).toBe(200);
    expect(r.answer.headers['content-type']).toContain('application/json');
    expect(r.answer.body).toMatchObject({ result: { input: { prompt: 'a cat' } } });
  });

  it('a refused connection is never_sent, and onSent is not called', async () => {
    let sent = false;
    const port = await freePort();
    const r = await sendRequest(
      { url: `http://127.0.0.1:${port}/x`, body: {} },
      { timeoutMs: 5000, onSent: () => (sent = true) },
    );
    expect(r).toMatchObject({ ok: false, failure: 'never_sent' });
    expect(sent).toBe(false);
  });

  it('a TLS handshake that fails is never_sent', async () => {
    const r = await sendRequest(
      { url: provider.url.replace('http:', 'https:') + '/x', body: {} },
      { timeoutMs: 5000 },
    );
    expect(r).toMatchObject({ ok: false, failure: 'never_sent' });
  });

  it('an unresolvable host is never_sent', async () => {
    const r = await sendRequest(
      { url: 'http://sluice-no-such-host.invalid/x' },
      { timeoutMs: 5000 },
    );
    expect(r).toMatchObject({ ok: false, failure: 'never_sent' });
  });

  it('a connection dropped after the request left is connection_dropped (and was sent)', async () => {
    const drop = await dropAfterRead();
    let sent = false;
    const r = await sendRequest(
      { url: drop.url, body: { a: 1 } },
      { timeoutMs: 5000, onSent: () => (sent = true) },
    );
    await drop.close();
    expect(r).toMatchObject({ ok: false, failure: 'connection_dropped' });
    expect(sent).toBe(true);
  });

  it('the provider committing then dropping is connection_dropped, and it billed', async () => {
    const r = await sendRequest(sync({ 'x-fault': 'commit-then-drop' }), { timeoutMs: 5000 });
    expect(r).toMatchObject({ ok: false, failure: 'connection_dropped' });
    const last = (await provider.ledger()).at(-1);
    expect(last).toMatchObject({ billed: true, outcome: 'dropped' });
  });

  it('no answer in time after sending is a timeout', async () => {
    const r = await sendRequest(sync({ 'x-fault': 'hang' }), { timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, failure: 'timeout' });
  });

  it('maps statuses: 4xx rejected, 5xx server_error, 410 target_missing', async () => {
    expect(await sendRequest(sync({ 'x-fault': 'http-4xx' }), { timeoutMs: 5000 })).toMatchObject({
      ok: false,
      failure: 'rejected',
      answer: { status: 422 },
    });
    expect(await sendRequest(sync({ 'x-fault': 'http-5xx' }), { timeoutMs: 5000 })).toMatchObject({
      ok: false,
      failure: 'server_error',
      answer: { status: 500 },
    });
    expect(
      await sendRequest(sync({ 'x-fault': 'error-before-processing' }), { timeoutMs: 5000 }),
    ).toMatchObject({ ok: false, failure: 'server_error', answer: { status: 503 } });
    expect([200, 302, 404, 410, 429, 500].map(classifyStatus)).toEqual([
      undefined,
      undefined,
      'rejected',
      'target_missing',
      'rejected',
      'server_error',
    ]);
  });

  it('an aborted signal before sending sends nothing; during the call it is connection_dropped', async () => {
    const before = (await provider.ledger()).length;
    const aborted = AbortSignal.abort();
    expect(await sendRequest(sync(), { timeoutMs: 5000, signal: aborted })).toMatchObject({
      failure: 'never_sent',
    });
    expect((await provider.ledger()).length).toBe(before);
    const c = new AbortController();
    const pending = sendRequest(sync({ 'x-fault': 'hang' }), { timeoutMs: 5000, signal: c.signal });
    setTimeout(() => c.abort(), 200);
    expect(await pending).toMatchObject({ failure: 'connection_dropped' });
  });
});
