// The Workers sender (fetch) against real sockets in Node: answers and statuses classified as
// node:http's sender does, and — because fetch hides the connect phase — every failure after the
// call started counted as possibly sent (`connection_dropped`/`timeout`), even a refused
// connection. Only an abort before the request was handed over is `never_sent`. The same code
// runs in workerd (a push platform's workerd suite drives it through the guard).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFakeProviderServer,
  FAKE_PROVIDER_PATHS,
  freePort,
  type FakeProviderServer,
} from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendFetch } from './send-fetch.js';
import type { ProviderRequest } from './types.js';

let provider: FakeProviderServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-fetch-'));
  provider = await createFakeProviderServer({ ledgerPath: join(dir, 'ledger.jsonl') });
});
afterAll(async () => {
  await provider.close();
  rmSync(dir, { recursive: true, force: true });
});

const sync = (fault?: string): ProviderRequest => ({
  method: 'POST',
  url: `${provider.url}${FAKE_PROVIDER_PATHS.sync}`,
  headers: { 'x-job-id': 'job-f', 'x-unit-key': 'u0', ...(fault ? { 'x-fault': fault } : {}) },
  body: { prompt: 'a cat' },
});

describe('sendFetch', () => {
  it('answers: JSON parsed, lower-case headers, status classified', async () => {
    const ok = await sendFetch(sync(), { timeoutMs: 5000 });
    expect(ok).toMatchObject({ ok: true, answer: { status: 200 } });
    if (ok.ok) {
      expect(typeof ok.answer.body).toBe('object');
      expect(ok.answer.headers['content-type']).toContain('json');
    }
    expect(await sendFetch(sync('http-4xx'), { timeoutMs: 5000 })).toMatchObject({
      ok: false,
      failure: 'rejected',
    });
    expect(await sendFetch(sync('http-5xx'), { timeoutMs: 5000 })).toMatchObject({
      ok: false,
      failure: 'server_error',
    });
  });

  it('a provider that bills then drops the connection is connection_dropped (ambiguous)', async () => {
    const r = await sendFetch(sync('commit-then-drop'), { timeoutMs: 5000 });
    expect(r).toMatchObject({ ok: false, failure: 'connection_dropped' });
  });

  it('no answer in time is timeout', async () => {
    const r = await sendFetch(sync('hang'), { timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, failure: 'timeout' });
  });

  it('a refused connection still counts as possibly sent: fetch cannot prove it never left', async () => {
    const port = await freePort();
    const r = await sendFetch({ url: `http://127.0.0.1:${port}/x` }, { timeoutMs: 2000 });
    expect(r).toMatchObject({ ok: false, failure: 'connection_dropped' });
  });

  it('aborted before sending is never_sent, and nothing reaches the provider', async () => {
    const before = (await provider.ledger()).length;
    const aborted = AbortSignal.abort();
    const r = await sendFetch(sync(), { timeoutMs: 5000, signal: aborted });
    expect(r).toMatchObject({ ok: false, failure: 'never_sent' });
    expect((await provider.ledger()).length).toBe(before);
  });
});
