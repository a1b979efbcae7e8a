import { createApiKey, getJobById, revokeApiKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sleep } from '@sluice/testkit';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { bearerToken, createApiKeyAuth } from './api-key-auth.js';
import { createOriginCheck } from './origin.js';

it('reads bearer tokens and nothing else', () => {
  expect(bearerToken('Bearer abc')).toBe('abc');
  expect(bearerToken('bearer  abc ')).toBe('abc');
  expect(bearerToken('Basic abc')).toBeNull();
  expect(bearerToken('Bearer a b')).toBeNull();
  expect(bearerToken(undefined)).toBeNull();
});

it('checks Origin: none and listed pass; same-origin only by the local address, never by Host', () => {
  const check = createOriginCheck({ allow: ['https://app.example.com/'], sameOrigin: true });
  const local = { address: '127.0.0.1', port: 3000 };
  expect(check(undefined, local)).toBe(true);
  expect(check('https://app.example.com', local)).toBe(true);
  expect(check('HTTPS://APP.EXAMPLE.COM', local)).toBe(true);
  expect(check('http://127.0.0.1:3000', local)).toBe(true);
  expect(check('http://localhost:3000', local)).toBe(true);
  expect(check('http://[::1]:3000', { address: '::1', port: 3000 })).toBe(true);
  // DNS rebinding: the attacker's name resolves here, and its page has Origin == Host.
  expect(check('http://evil.example:3000', local)).toBe(false);
  expect(check('http://127.0.0.1:3001', local)).toBe(false);
  expect(check('http://localhost:3000', { address: '10.0.0.5', port: 3000 })).toBe(false);
  expect(check('https://evil.example', local)).toBe(false);
  expect(check('null', local)).toBe(false);
  const strict = createOriginCheck({ allow: [], sameOrigin: false });
  expect(strict('http://127.0.0.1:3000', local)).toBe(false);
});

it('checks Origin by scheme, host and port: a page on another scheme is another origin', () => {
  const check = createOriginCheck({ allow: ['https://app.example.com'], sameOrigin: true });
  const plain = { address: '127.0.0.1', port: 3000, secure: false };
  const tls = { address: '127.0.0.1', port: 3000, secure: true };
  // The gateway speaks plain HTTP here: an https (or any other scheme's) page is not its own.
  for (const origin of [
    'https://127.0.0.1:3000',
    'https://localhost:3000',
    'ws://127.0.0.1:3000',
    'ftp://127.0.0.1:3000',
    'chrome-extension://127.0.0.1:3000',
  ]) {
    expect([origin, check(origin, plain)]).toEqual([origin, false]);
  }
  expect(check('http://127.0.0.1:3000', plain)).toBe(true);
  expect(check('https://127.0.0.1:3000', tls)).toBe(true);
  expect(check('http://127.0.0.1:3000', tls)).toBe(false);
  // Listed origins: the scheme and the port count too (the default port may be written out).
  expect(check('http://app.example.com', plain)).toBe(false);
  expect(check('https://app.example.com:443', plain)).toBe(true);
  expect(check('https://app.example.com:8443', plain)).toBe(false);
  expect(check('https://app.example.com.evil.example', plain)).toBe(false);
});

describeEachDialect('auth', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), { auth: { cacheTtlMs: 200, devKey: 'dev-secret-key' } });
  });
  afterAll(async () => {
    await f.close();
  });

  async function statusAndBody(key: string | null, path = '/trpc/jobs.list?input=%7B%7D') {
    const res = await fetch(`${f.url}${path}`, {
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
    });
    return { status: res.status, body: await res.text() };
  }

  it('answers missing, malformed, unknown and revoked keys with one identical 401', async () => {
    const revoked = await createApiKey(ctx().database.db, 'acme');
    expect((await statusAndBody(revoked.key)).status).toBe(200);
    await revokeApiKey(ctx().database.db, revoked.id);
    await sleep(250); // the auth cache TTL
    const unknown = `sk_k${'a'.repeat(12)}_${'b'.repeat(32)}`;
    const answers = await Promise.all(
      [null, 'nonsense', unknown, revoked.key, `${f.keyA}x`, 'x'.repeat(5000)].map((k) =>
        statusAndBody(k),
      ),
    );
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect(answers[0]?.status).toBe(401);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({
      error: { message: 'missing or invalid API key', data: { code: 'UNAUTHORIZED' } },
    });
    // Uploads answer them alike too.
    const uploads = await Promise.all(
      [null, 'nonsense', unknown, revoked.key].map(async (k) => {
        const res = await fetch(`${f.url}/v1/uploads`, {
          method: 'POST',
          headers: k === null ? {} : { authorization: `Bearer ${k}` },
          body: 'x',
        });
        return { status: res.status, body: await res.text() };
      }),
    );
    for (const u of uploads) expect(u).toEqual({ status: 401, body: uploads[0]!.body });
  });

  it('accepts SLUICE_API_KEY as tenant dev, compared in full', async () => {
    const r = await f.http('dev-secret-key').jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'dev' },
    });
    expect((await getJobById(ctx().database.db, r.id))?.tenantId).toBe('dev');
    expect((await statusAndBody('dev-secret-keY')).status).toBe(401);
    expect((await statusAndBody('dev-secret-key-')).status).toBe(401);
  });

  it('caches verifications for at most the TTL', async () => {
    const auth = createApiKeyAuth(ctx().database.db, { cacheTtlMs: 60_000 });
    const k = await createApiKey(ctx().database.db, 'acme');
    expect(await auth.verify(k.key)).toMatchObject({ tenantId: 'acme', keyId: k.id });
    await revokeApiKey(ctx().database.db, k.id);
    // Capped at 5 s whatever is asked; a fresh verifier sees the revocation at once.
    expect(await createApiKeyAuth(ctx().database.db).verify(k.key)).toBeUndefined();
    auth.clear();
    expect(await auth.verify(k.key)).toBeUndefined();
  });
});
