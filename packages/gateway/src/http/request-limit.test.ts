// The tRPC request limit judges a declared length from the header and counts a chunked body as it
// streams: both over the limit are refused with 413 and write nothing; a chunked body under it
// still reaches the procedure intact. (The size checks are dialect-independent: SQLite only.)
import { request } from 'node:http';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';

const LIMIT = 4096;

/** POSTs `body` to jobs.submit in 1 KiB chunks without Content-Length. */
function chunkedSubmit(f: GatewayFixture, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${f.url}/trpc/jobs.submit`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${f.keyA}`,
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (e: NodeJS.ErrnoException) =>
      // A reset while the client still writes is a refusal too.
      e.code === 'ECONNRESET' || e.code === 'EPIPE'
        ? resolve({ status: 413, text: '' })
        : reject(e),
    );
    for (let i = 0; i < body.length; i += 1024) req.write(body.slice(i, i + 1024));
    req.end();
  });
}

describe('tRPC request limit', () => {
  let db: TestDatabase;
  let f: GatewayFixture;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    f = await startGateway(db, { maxRequestBytes: LIMIT });
  });
  afterAll(async () => {
    await f.close();
    await db.dispose();
  });

  const submit = (text: string) => JSON.stringify({ kind: 'demo.echo', input: { text } });

  it('refuses a declared length over the limit and a chunked body that grows over it', async () => {
    const before = await f.counts();
    const declared = await fetch(`${f.url}/trpc/jobs.submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}`, 'content-type': 'application/json' },
      body: submit('x'.repeat(LIMIT)),
    });
    expect(declared.status).toBe(413);
    const chunked = await chunkedSubmit(f, submit('x'.repeat(LIMIT)));
    expect(chunked.status).toBe(413);
    expect(await f.counts()).toEqual(before);
  });

  it('passes a chunked body under the limit, and a declared one exactly at it', async () => {
    const chunked = await chunkedSubmit(f, submit('y'.repeat(900)));
    expect(chunked.status).toBe(200);
    expect(JSON.parse(chunked.text)).toMatchObject({ result: { data: { state: 'queued' } } });
    const exact = submit('z'.repeat(900));
    const padded = exact + ' '.repeat(LIMIT - Buffer.byteLength(exact));
    const res = await fetch(`${f.url}/trpc/jobs.submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}`, 'content-type': 'application/json' },
      body: padded,
    });
    expect(res.status).toBe(200);
  });
});
