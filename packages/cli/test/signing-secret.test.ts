// SLUICE_SIGNING_SECRET: gateways behind one load balancer sign download links with one key, so a
// link made by one gateway opens on another; a gateway without the key (its own random one)
// refuses it. Separate gateways on one PostgreSQL database and one blob folder, as deployed.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSluiceClient } from '@sluice/client';
import { createApiKey } from '@sluice/storage';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@sluice/storage/testing';
import { freePort } from '@sluice/testkit';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe, type Served } from '../src/commands/serve.js';
import { resolveSettings } from '../src/define-config.js';
import config from './fixtures/ops.config.js';
import type { jobs } from './fixtures/ops-jobs.js';

const SECRET = 'a-shared-signing-secret-of-32-bytes-or-more';

describe.runIf(TEST_DIALECTS.includes('postgres'))('SLUICE_SIGNING_SECRET [postgres]', () => {
  let db: TestDatabase;
  let blobsDir: string;
  const gateways: Served[] = [];
  const start = async (secret?: string) => {
    const served = await runServe(
      'gateway',
      resolveSettings(config, {
        DATABASE_URL: db.url,
        SLUICE_BLOBS_DIR: blobsDir,
        PORT: String(await freePort()),
        ...(secret ? { SLUICE_SIGNING_SECRET: secret } : {}),
      }),
      () => {},
    );
    gateways.push(served);
    return served.gatewayUrl as string;
  };

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    blobsDir = mkdtempSync(join(tmpdir(), 'sluice-signing-'));
  });
  afterAll(async () => {
    for (const g of gateways) await g.stop(1_000);
    await db?.dispose();
    rmSync(blobsDir, { recursive: true, force: true });
  });

  it('a link signed by one gateway opens on another with the same secret, not on one without it', async () => {
    const [first, second, unkeyed] = [await start(SECRET), await start(SECRET), await start()];
    const apiKey = (await createApiKey(db.database.db, 'acme')).key;
    const client = createSluiceClient<typeof jobs>({ url: first, apiKey, WebSocket });
    const file = await client.upload(new TextEncoder().encode('signed bytes'), {
      filename: 'note.txt',
      contentType: 'text/plain',
    });
    const link = new URL((await client.files.signedUrl(file.id)).url);
    await client.close();
    expect(link.origin).toBe(first);
    const on = async (base: string) => {
      const res = await fetch(new URL(`${link.pathname}${link.search}`, base));
      return { status: res.status, body: await res.text() };
    };
    expect(await on(first)).toEqual({ status: 200, body: 'signed bytes' });
    expect(await on(second)).toEqual({ status: 200, body: 'signed bytes' });
    const refused = await on(unkeyed);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.body).not.toContain('signed bytes');
  });
});
