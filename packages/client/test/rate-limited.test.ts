// Over a gateway limit, the typed client raises the taxonomy's RATE_LIMITED (a SluiceApiError
// with httpStatus 429) for calls and uploads alike, and a scope the key lacks is FORBIDDEN.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedDispatcher, createGateway, serve } from '@sluice/gateway';
import { createApiKey, createLocalBlobStore } from '@sluice/storage';
import { createTestDatabase } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createSluiceClient, isSluiceApiError } from '../src/index.js';
import { testJobs, type TestJobs } from './fixtures/jobs.js';

async function errorOf(p: Promise<unknown>) {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

it('surfaces RATE_LIMITED and FORBIDDEN as typed errors', async () => {
  const db = await createTestDatabase('sqlite');
  const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-rate-'));
  const gateway = createGateway({
    jobs: testJobs,
    database: db.database,
    blobs: createLocalBlobStore(blobRoot),
    runtime: createEmbeddedDispatcher(db.database),
    logger: { warn() {}, error() {} },
    limits: { keyRate: { perSecond: 0.1, burst: 2 } },
  });
  const server = await serve(gateway, { port: 0 });
  const limited = await createApiKey(db.database.db, 'acme');
  const readOnly = await createApiKey(db.database.db, 'acme', { scopes: ['jobs:read'] });
  const client = createSluiceClient<TestJobs>({ url: server.url, apiKey: limited.key, WebSocket });
  const reader = createSluiceClient<TestJobs>({ url: server.url, apiKey: readOnly.key, WebSocket });
  try {
    await client.jobs.list();
    await client.jobs.list();
    const e = await errorOf(client.jobs.list());
    expect(isSluiceApiError(e) && { code: e.code, status: e.httpStatus }).toEqual({
      code: 'RATE_LIMITED',
      status: 429,
    });
    const up = await errorOf(client.upload(new TextEncoder().encode('x')));
    expect(isSluiceApiError(up) && up.code).toBe('RATE_LIMITED');
    const denied = await errorOf(reader.files.delete('f_aaaaaaaaaaaaaaaaaaaaaaaaaa'));
    expect(isSluiceApiError(denied) && { code: denied.code, status: denied.httpStatus }).toEqual({
      code: 'FORBIDDEN',
      status: 403,
    });
  } finally {
    await client.close();
    await reader.close();
    await server.close();
    await db.dispose();
    rmSync(blobRoot, { recursive: true, force: true });
  }
});
