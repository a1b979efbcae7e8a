// Two limits against a real gateway on each dialect: a tenant's storage quota (uploads plus its
// jobs' assets; an upload that would pass it is refused with 413 QUOTA_EXCEEDED and leaves no
// row and no blob) and HTTP requests in flight per API key (a slow upload or an unread download
// holds its slot; one tRPC batch is one request; another key is unaffected).

import { request } from 'node:http';
import { insertAsset } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterEach, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { httpCall } from '../testing/raw-calls.js';

const upload = (g: GatewayFixture, key: string, body: BodyInit, init: RequestInit = {}) =>
  fetch(`${g.url}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
    body,
    ...init,
  });

/**
 * An upload over its own connection that sends its headers and one chunk, then waits until
 * `end()`; `answer` is the status the gateway gave.
 */
function slowUpload(url: string, key: string): { end(): void; answer: Promise<number> } {
  const req = request(`${url}/v1/uploads`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
  });
  const answer = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  req.write(Buffer.alloc(16, 7));
  return { end: () => req.end(), answer };
}

describeEachDialect('limits: storage quota and requests in flight', (ctx) => {
  let f: GatewayFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  it('storage quota: an upload that would pass the tenant quota is refused and stores nothing', async () => {
    const g = (f = await startGateway(ctx(), { limits: { tenantStorageBytes: 1000 } }));
    expect((await upload(g, g.keyA, new Uint8Array(600).fill(1))).status).toBe(201);
    const before = await g.counts();

    // Declared length over what is left: refused before a byte is read.
    const declared = await upload(g, g.keyA, new Uint8Array(600).fill(2));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: { code: 'QUOTA_EXCEEDED' } });
    // No declared length (streamed): cut at the first byte over the quota.
    const chunks = new Blob([new Uint8Array(300).fill(3), new Uint8Array(300).fill(4)]).stream();
    const streamed = await upload(g, g.keyA, chunks, { duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ error: { code: 'QUOTA_EXCEEDED' } });
    expect(await g.counts()).toEqual(before);

    // What fits still fits; another tenant has its own quota.
    expect((await upload(g, g.keyA, new Uint8Array(400).fill(5))).status).toBe(201);
    expect((await upload(g, g.keyB, new Uint8Array(900).fill(6))).status).toBe(201);

    // Assets count too: tenant globex's job outputs fill its quota, its uploads stop.
    await insertAsset(g.db.database.db, {
      finalKey: 'assets/globex/j_x/u/out.bin',
      jobId: 'j_x',
      tenantId: 'globex',
      unitKey: 'u',
      name: 'out.bin',
      size: 100,
      sha256: '0'.repeat(64),
      contentType: 'application/octet-stream',
      attemptId: 'a_x',
    });
    const full = await upload(g, g.keyB, new Uint8Array(1).fill(7));
    expect(full.status).toBe(413);
    expect(await full.json()).toMatchObject({ error: { code: 'QUOTA_EXCEEDED' } });
  });

  it('requests in flight per key: a slow upload holds its slot; the next request gets 429 until it ends', async () => {
    // The two uploads hold their slots until ended. On a loaded machine they can reach the
    // handler seconds apart, so the idle cut (10 s by default) must not end the first before
    // the second arrives: with it, both answered 408 and the key never filled up.
    const g = (f = await startGateway(ctx(), {
      limits: { requestsPerKey: 2 },
      uploads: { idleMs: 120_000 },
    }));
    const slow = [slowUpload(g.url, g.keyA), slowUpload(g.url, g.keyA)];
    const list = () => httpCall(g.url, 'jobs.list', 'query', g.keyA, {});
    // Wait on the gate's own count, not by polling with requests: a poll takes a slot of the
    // same key while it is in flight, and on a loaded machine it could take the second slot
    // before the second upload got through authentication, which then got the 429 itself.
    const early: string[] = [];
    slow.forEach((s, i) =>
      s.answer.then(
        (status) => early.push(`upload ${i} answered ${status}`),
        (error: unknown) => early.push(`upload ${i} failed: ${String(error)}`),
      ),
    );
    await waitFor(() => g.gateway.gate.requests.inFlight(g.keyIdA) === 2 || early.length > 0, {
      timeoutMs: 30_000,
      message: 'both slow uploads holding their slots',
    });
    expect(early).toEqual([]);
    expect((await list()).status).toBe(429);
    const refused = await fetch(`${g.url}/trpc/jobs.list?input=%7B%7D`, {
      headers: { authorization: `Bearer ${g.keyA}` },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: { data: { sluiceCode: 'RATE_LIMITED' } } });
    // Another key of the same tenant has its own slots.
    const other = await httpCall(g.url, 'jobs.list', 'query', g.adminKey, {});
    expect(other.status).toBe(200);

    slow[0]!.end();
    expect(await slow[0]!.answer).toBe(201);
    // One tRPC batch of five calls is one request: one slot, all answered.
    const batch = await fetch(
      `${g.url}/trpc/jobs.list,jobs.list,jobs.list,jobs.list,jobs.list?batch=1&input=${encodeURIComponent(
        JSON.stringify({ 0: {}, 1: {}, 2: {}, 3: {}, 4: {} }),
      )}`,
      { headers: { authorization: `Bearer ${g.keyA}` } },
    );
    expect(batch.status).toBe(200);
    expect(((await batch.json()) as unknown[]).length).toBe(5);
    slow[1]!.end();
    expect(await slow[1]!.answer).toBe(201);
    expect(g.gateway.gate.requests.inFlight(g.keyIdA)).toBe(0);
  });

  it('requests in flight per key: an unread download holds its slot until the client lets go', async () => {
    const g = (f = await startGateway(ctx(), { limits: { requestsPerKey: 1 } }));
    const big = new Uint8Array(8 * 1024 * 1024).fill(9);
    const created = (await (await upload(g, g.keyA, big)).json()) as { id: string };
    const res = await fetch(`${g.url}/v1/files/${created.id}`, {
      headers: { authorization: `Bearer ${g.keyA}` },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read(); // one chunk; the rest waits on TCP back-pressure
    const list = () => httpCall(g.url, 'jobs.list', 'query', g.keyA, {});
    expect((await list()).status).toBe(429);
    await reader.cancel();
    await waitFor(async () => (await list()).status === 200, { timeoutMs: 10_000 });
    await waitFor(() => g.gateway.gate.requests.inFlight(g.keyIdA) === 0, { timeoutMs: 5000 });
  });
});
