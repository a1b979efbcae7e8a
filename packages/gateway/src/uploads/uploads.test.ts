import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { getFile, uploadKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { parseContentType, sanitizeFilename } from './uploads.js';

const LIMIT = 256 * 1024;

it('keeps display names harmless and content types plain', () => {
  expect(sanitizeFilename(encodeURIComponent('../../etc/pass\u202Ewd.txt'))).toBe('passwd.txt');
  expect(sanitizeFilename('a\\b\\c.pdf')).toBe('c.pdf');
  expect(sanitizeFilename('%E2%9C%93 ok.pdf')).toBe('✓ ok.pdf');
  expect(sanitizeFilename('bad%zz')).toBe('bad%zz');
  expect(sanitizeFilename('..')).toBeNull();
  expect(sanitizeFilename('x'.repeat(400))?.length).toBe(255);
  expect(sanitizeFilename(undefined)).toBeNull();
  expect(parseContentType('Application/PDF; charset=binary')).toBe('application/pdf');
  expect(parseContentType('text/html<script>')).toBe('application/octet-stream');
  expect(parseContentType(undefined)).toBe('application/octet-stream');
});

/** Sends a body in chunks without Content-Length; resolves with the status (or the reset). */
function chunkedUpload(url: string, key: string, total: number): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    const chunk = Buffer.alloc(16 * 1024, 97);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describeEachDialect('uploads', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), { uploads: { maxBytes: LIMIT, sweepIntervalMs: 0 } });
  });
  afterAll(async () => {
    await f.close();
  });

  const upload = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${f.url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}`, ...headers },
      body,
      duplex: 'half',
    } as RequestInit);

  it('streams a body to the blob store with its size and sha256', async () => {
    const parts = Array.from({ length: 8 }, (_, i) => Buffer.alloc(16 * 1024, 65 + i));
    parts[0]!.write('%PDF-1.7\n'); // the bytes bear out the declared type (upload-guard.ts)
    const expected = createHash('sha256').update(Buffer.concat(parts)).digest('hex');
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const res = await upload(stream, {
      'content-type': 'application/pdf',
      'x-filename': encodeURIComponent('../report\u0000.pdf'),
    });
    expect(res.status).toBe(201);
    const view = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(view).sort()).toEqual([
      'contentType',
      'createdAt',
      'expiresAt',
      'filename',
      'id',
      'sha256',
      'size',
    ]);
    expect(view).toMatchObject({
      size: 8 * 16 * 1024,
      sha256: expected,
      contentType: 'application/pdf',
      filename: 'report.pdf',
    });
    const expires = Date.parse(view.expiresAt as string) - Date.parse(view.createdAt as string);
    expect(expires).toBe(24 * 60 * 60 * 1000);
    expect(await f.blobs.stat(uploadKey('acme', view.id as string))).toMatchObject({
      size: 8 * 16 * 1024,
      contentType: 'application/pdf',
    });
    expect(await f.http(f.keyA).files.get.query({ id: view.id as string })).toEqual(view);
  });

  it('accepts exactly the limit; refuses an empty body, writing nothing', async () => {
    const full = await upload(new Uint8Array(LIMIT));
    expect(full.status).toBe(201);
    expect(await full.json()).toMatchObject({
      size: LIMIT,
      contentType: 'application/octet-stream',
      filename: null,
    });
    const before = await f.counts();
    const empty = await upload(new Uint8Array(0));
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: { code: 'BAD_REQUEST', message: 'empty upload' } });
    expect(await f.counts()).toEqual(before);
  });

  it('refuses a declared Content-Length over the limit before reading it', async () => {
    const before = await f.counts();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${f.url}/v1/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${f.keyA}`, 'content-length': String(LIMIT * 100) },
      });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.write('only a few bytes'); // the rest never comes: the answer must not wait for it
    });
    expect(status).toBe(413);
    expect(await f.counts()).toEqual(before);
  });

  it('cuts a chunked body at the first byte over the limit, leaving nothing', async () => {
    const before = await f.counts();
    const status = await chunkedUpload(f.url, f.keyA, LIMIT * 8);
    // The 413 normally arrives; a reset while the client still writes is also a refusal.
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(status);
    expect(await f.counts()).toEqual(before);
    expect(before.tempFiles).toBe(0);
  });

  it('leaves nothing behind when the client disconnects mid-upload', async () => {
    const before = await f.counts();
    await new Promise<void>((resolve) => {
      const req = request(`${f.url}/v1/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${f.keyA}`, 'transfer-encoding': 'chunked' },
      });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(32 * 1024, 98));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    await waitFor(async () => (await f.counts()).tempFiles === 0, { timeoutMs: 5000 });
    expect(await f.counts()).toEqual(before);
  });

  it('attaching a file stops its expiry; the sweep removes only unattached expired uploads', async () => {
    const client = f.http(f.keyA);
    const kept = (await (await upload('keep me')).json()) as { id: string };
    const lost = (await (await upload('lose me')).json()) as { id: string };
    await client.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'f' },
      fileIds: [kept.id],
    });
    const db = ctx().database.db;
    expect((await getFile(db, 'acme', kept.id))?.expiresAt).toBeNull();
    const later = Date.now() + 2 * 24 * 60 * 60 * 1000;
    expect(await f.gateway.sweepUploads(later)).toBeGreaterThanOrEqual(1);
    expect(await getFile(db, 'acme', lost.id)).toBeUndefined();
    expect(await f.blobs.stat(uploadKey('acme', lost.id))).toBeUndefined();
    expect(await getFile(db, 'acme', kept.id)).toBeDefined();
    expect(await f.blobs.stat(uploadKey('acme', kept.id))).toMatchObject({ size: 7 });
  });

  it('deletes a file: row and blob', async () => {
    const client = f.http(f.keyA);
    const file = (await (await upload('delete me')).json()) as { id: string };
    expect(await client.files.delete.mutate({ id: file.id })).toEqual({ id: file.id });
    expect(await getFile(ctx().database.db, 'acme', file.id)).toBeUndefined();
    expect(await f.blobs.stat(uploadKey('acme', file.id))).toBeUndefined();
    const listed = await client.files.list.query({ limit: 100 });
    expect(listed.items.map((i) => i.id)).not.toContain(file.id);
  });
});
