// Uploads are judged by their bytes: a declared type the magic numbers contradict is a 415, a
// generic type takes the sniffed one, an allow-list holds, types a browser would run are never
// stored, markup is stripped from names, and a body that stalls is cut in seconds with nothing
// left behind (no temp file, no blob, no row).

import { request } from 'node:http';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { sanitizeFilename } from './uploads.js';
import { sniff } from './upload-guard.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2]);

it('sniffs by magic numbers and strips markup from names', () => {
  expect(sniff(PNG)).toBe('image/png');
  expect(sniff(new TextEncoder().encode('%PDF-1.4 …'))).toBe('application/pdf');
  expect(sniff(new TextEncoder().encode('<html>'))).toBeUndefined();
  expect(sanitizeFilename('<img src=x onerror=alert(1)>.png')).toBe(
    'img src=x onerror=alert(1).png',
  );
});

describeEachDialect('upload guard', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), {
      uploads: {
        idleMs: 500,
        allowedTypes: ['image/*', 'application/pdf', 'text/plain', 'application/octet-stream'],
      },
    });
  });
  afterAll(async () => {
    await f?.close();
  });
  const upload = (body: BodyInit, type?: string) =>
    fetch(`${f.url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}`, ...(type ? { 'content-type': type } : {}) },
      body,
    });

  it('refuses a declared type the bytes contradict, and types outside the allow-list', async () => {
    const before = await f.counts();
    const fake = await upload('not a png at all', 'image/png');
    expect(fake.status).toBe(415);
    expect(await fake.json()).toEqual({
      error: { code: 'BAD_REQUEST', message: 'the content is not image/png' },
    });
    expect((await upload('<svg onload=alert(1)>', 'image/svg+xml')).status).toBe(415);
    expect((await upload('<html></html>', 'text/html')).status).toBe(415);
    expect((await upload('{"a":1}', 'application/json')).status).toBe(415);
    expect(await f.counts()).toEqual(before);
  });

  it('stores a generic upload under the type its bytes show', async () => {
    const res = await upload(PNG, 'application/octet-stream');
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ contentType: 'image/png', size: PNG.length });
    expect((await upload('plain words', 'text/plain')).status).toBe(201);
  });

  it('cuts a body that stalls within seconds (408), leaving nothing behind', async () => {
    const before = await f.counts();
    const started = Date.now();
    const answer = await new Promise<{ status: number; ms: number }>((resolve, reject) => {
      const req = request(`${f.url}/v1/uploads`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${f.keyA}`,
          'content-type': 'text/plain',
          'content-length': '100000',
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, ms: Date.now() - started });
      });
      req.on('error', reject);
      req.write('a'.repeat(1000)); // then nothing more
    });
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeLessThan(3000);
    expect(await f.counts()).toEqual(before);
  });
});
