// Downloads over real HTTP: whole and ranged, the headers a resuming client relies on, tenant
// scope (another tenant's id answers exactly like a missing one), typed errors, signed links.
// Assets are written the way the worker's protocol leaves them (blob at the final key + row).

import { assetKey, insertAsset } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

const BODY = 'The quick brown fox jumps over the lazy dog.';

describeEachDialect('downloads', (ctx) => {
  let f: GatewayFixture;
  let fileId: string;
  let sha256: string;
  let jobId: string;
  beforeAll(async () => {
    f = await startGateway(ctx(), { uploads: { sweepIntervalMs: 0 } });
    const res = await fetch(`${f.url}/v1/uploads`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${f.keyA}`,
        'content-type': 'text/plain',
        'x-filename': encodeURIComponent('fox «1».txt'),
      },
      body: BODY,
    });
    ({ id: fileId, sha256 } = (await res.json()) as { id: string; sha256: string });
    jobId = (await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.copy', input: { text: 'x' } }))
      .id;
    const db = ctx().database.db;
    const asset = async (scope: string, name: string, text: string, contentType: string) => {
      const key = assetKey('acme', jobId, scope, name);
      const put = await f.blobs.put(key, new Blob([text]).stream(), { contentType });
      await insertAsset(db, {
        finalKey: key,
        jobId,
        tenantId: 'acme',
        unitKey: scope,
        name,
        size: put.size,
        sha256: put.sha256,
        contentType,
        attemptId: 'att_test',
      });
    };
    await asset('finalize', 'summary.json', '{"words":9}', 'application/json');
    await asset('unit:scene-1', 'frame.bin', 'frame bytes', 'application/octet-stream');
    await asset('checkpoint:plan', 'result.json', '{"internal":true}', 'application/json');
  });
  afterAll(async () => {
    await f.close();
  });

  const get = (path: string, headers: Record<string, string> = {}, key: string | null = f.keyA) =>
    fetch(`${f.url}${path}`, {
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    });

  it('streams a file whole with its type, length, etag and an attachment disposition', async () => {
    const res = await get(`/v1/files/${fileId}`);
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'text/plain',
      'content-length': String(BODY.length),
      etag: `"${sha256}"`,
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="fox _1_.txt"; filename*=UTF-8''${encodeURIComponent('fox «1».txt')}`,
    });
    expect(await res.text()).toBe(BODY);
  });

  it('answers byte ranges with 206 and Content-Range, and bad ones with 416', async () => {
    const mid = await get(`/v1/files/${fileId}`, { range: 'bytes=4-8' });
    expect(mid.status).toBe(206);
    expect(mid.headers.get('content-range')).toBe(`bytes 4-8/${BODY.length}`);
    expect(mid.headers.get('content-length')).toBe('5');
    expect(await mid.text()).toBe('quick');
    const suffix = await get(`/v1/files/${fileId}`, { range: 'bytes=-4' });
    expect([suffix.status, await suffix.text()]).toEqual([206, 'dog.']);
    const open = await get(`/v1/files/${fileId}`, { range: `bytes=${BODY.length - 1}-` });
    expect([open.status, await open.text()]).toEqual([206, '.']);
    const bad = await get(`/v1/files/${fileId}`, { range: `bytes=${BODY.length}-` });
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe(`bytes */${BODY.length}`);
    expect(await bad.json()).toEqual({
      error: { code: 'RANGE_NOT_SATISFIABLE', message: `range outside the ${BODY.length} bytes` },
    });
    // A client holding another version asks with If-Range: it gets everything.
    const stale = await get(`/v1/files/${fileId}`, { range: 'bytes=0-1', 'if-range': '"old"' });
    expect([stale.status, (await stale.text()).length]).toEqual([200, BODY.length]);
    const fresh = await get(`/v1/files/${fileId}`, {
      range: 'bytes=0-2',
      'if-range': `"${sha256}"`,
    });
    expect([fresh.status, await fresh.text()]).toEqual([206, 'The']);
    const cached = await get(`/v1/files/${fileId}`, { 'if-none-match': `"${sha256}"` });
    expect(cached.status).toBe(304);
  });

  it('answers HEAD with the headers of the GET and no body', async () => {
    const head = await fetch(`${f.url}/v1/files/${fileId}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${f.keyA}`, range: 'bytes=4-8' },
    });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-length')).toBe('5');
    expect(head.headers.get('content-range')).toBe(`bytes 4-8/${BODY.length}`);
    expect(head.headers.get('etag')).toBe(`"${sha256}"`);
    expect(await head.text()).toBe('');
  });

  it("another tenant's file answers exactly like a missing one", async () => {
    const foreign = await get(`/v1/files/${fileId}`, {}, f.keyB);
    const missing = await get(`/v1/files/f_${'a'.repeat(26)}`, {}, f.keyB);
    expect(foreign.status).toBe(404);
    expect(Object.fromEntries(foreign.headers)).toEqual({
      ...Object.fromEntries(missing.headers),
      date: foreign.headers.get('date'),
    });
    expect(await foreign.text()).toBe(await missing.text());
    const ranged = await get(`/v1/files/${fileId}`, { range: 'bytes=0-0' }, f.keyB);
    expect(ranged.status).toBe(404);
    await ranged.body?.cancel();
  });

  it('authenticates first (401), then validates (400, typed), then looks up (404)', async () => {
    const anonymous = await get(`/v1/files/${fileId}`, {}, null);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe(
      'UNAUTHORIZED',
    );
    expect((await get('/v1/files/..%2F..%2Fetc', {}, null)).status).toBe(401);
    const malformed = await get('/v1/files/not-a-file-id');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      error: { code: 'BAD_REQUEST', issues: [{ path: 'id', message: 'not a file id' }] },
    });
    const badAsset = await get(`/v1/jobs/${jobId}/assets/..hidden`);
    expect(badAsset.status).toBe(400);
    await badAsset.body?.cancel();
  });

  it("lists a job's assets (never its internal checkpoints) and serves each by name and unit", async () => {
    const client = f.http(f.keyA);
    const { items } = await client.jobs.assets.query({ id: jobId });
    expect(items.map((a) => [a.unit, a.name, a.size, a.contentType])).toEqual([
      [null, 'summary.json', 11, 'application/json'],
      ['scene-1', 'frame.bin', 11, 'application/octet-stream'],
    ]);
    const summary = await get(`/v1/jobs/${jobId}/assets/summary.json`);
    expect(summary.headers.get('content-type')).toBe('application/json');
    expect(await summary.text()).toBe('{"words":9}');
    const frame = await get(`/v1/jobs/${jobId}/assets/frame.bin?unit=scene-1`, {
      range: 'bytes=6-',
    });
    expect([frame.status, await frame.text()]).toEqual([206, 'bytes']);
    for (const path of [
      `/v1/jobs/${jobId}/assets/frame.bin`, // the unit is part of the name
      `/v1/jobs/${jobId}/assets/result.json?unit=plan`,
      `/v1/jobs/${jobId}/assets/result.json`,
    ]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      await res.body?.cancel();
    }
  });

  it("another tenant can neither list nor fetch a job's assets", async () => {
    const other = f.http(f.keyB);
    expect((await errorOf(other.jobs.assets.query({ id: jobId }))).data).toMatchObject({
      sluiceCode: 'NOT_FOUND',
    });
    expect(
      (await errorOf(other.jobs.assetUrl.mutate({ id: jobId, name: 'summary.json' }))).data,
    ).toMatchObject({ sluiceCode: 'NOT_FOUND' });
    expect((await errorOf(other.files.signedUrl.mutate({ id: fileId }))).data).toMatchObject({
      sluiceCode: 'NOT_FOUND',
    });
    const res = await get(`/v1/jobs/${jobId}/assets/summary.json`, {}, f.keyB);
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });

  it('a signed link opens its own file or asset without a key, and nothing else', async () => {
    const client = f.http(f.keyA);
    const link = await client.files.signedUrl.mutate({ id: fileId, expiresInSeconds: 60 });
    expect(link.url.startsWith(`/v1/files/${fileId}?token=`)).toBe(true);
    expect(Date.parse(link.expiresAt)).toBeGreaterThan(Date.now());
    const res = await get(link.url, { range: 'bytes=0-2' }, null);
    expect([res.status, await res.text()]).toEqual([206, 'The']);
    const token = new URL(link.url, f.url).searchParams.get('token')!;
    const elsewhere = await get(`/v1/files/f_${'b'.repeat(26)}?token=${token}`, {}, null);
    expect(elsewhere.status).toBe(401);
    await elsewhere.body?.cancel();
    const assetLink = await client.jobs.assetUrl.mutate({
      id: jobId,
      name: 'frame.bin',
      unit: 'scene-1',
    });
    expect(await (await get(assetLink.url, {}, null)).text()).toBe('frame bytes');
    // The unit is signed too: the same token does not open the finalize asset of that name.
    const swapped = assetLink.url.replace('unit=scene-1', 'unit=scene-2');
    expect((await get(swapped, {}, null)).status).toBe(401);
    const tampered = link.url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await get(tampered, {}, null)).status).toBe(401);
  });

  it('a rejected download writes nothing', async () => {
    const before = await f.counts();
    await (await get(`/v1/files/${fileId}`, {}, null)).text();
    await (await get('/v1/files/nope')).text();
    await (await get(`/v1/files/${fileId}`, { range: 'bytes=999-' })).text();
    expect(await f.counts()).toEqual(before);
  });
});
