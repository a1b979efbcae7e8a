// The S3 store against a real S3-protocol server (s3rver, started here on a free port with a
// private folder), through the same conformance suite as the local folder store.

import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from './blob-store.js';
import { openBlobStore } from './open-blob-store.js';
import { createS3BlobStore, probeS3Conditional } from './s3.js';
import { describeBlobStore } from './testing/blob-store-suite.js';
import { chunksOf, textOf } from './testing/blob-bytes.js';
import { folderBytes, startS3Server, type S3Server } from './testing/node-fixtures.js';

let server: S3Server;
let store: BlobStore;
beforeAll(async () => {
  server = await startS3Server();
  store = await openBlobStore(`s3://${server.bucket}/suite-prefix`, { env: server.env });
});
afterAll(async () => {
  await store?.close?.();
  await server?.close();
});

describeBlobStore('s3 (s3rver, emulated conditionals)', {
  store: () => store,
  // Three 5 MiB parts and a bit: a multipart upload, and ranges that cross part boundaries.
  largeObjectBytes: 16 * 1024 * 1024,
  storedBytes: () => folderBytes(server.directory),
  skip: {
    'concurrent-publish':
      's3rver ignores If-None-Match: publish is check-then-copy, which serialises sequential ' +
      'publishers only (racing ones are serialised by the asset protocol transaction)',
  },
});

describe('s3 blob store', () => {
  it('finds that s3rver ignores conditional headers, and says so in its capabilities', async () => {
    expect(store.capabilities).toEqual({
      atomicPublish: false,
      atomicDeleteIfMatch: false,
      presignGet: true,
    });
    const client = new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    try {
      expect(await probeS3Conditional({ bucket: server.bucket, client })).toBe('emulated');
      // The probe cleans up after itself.
      const keys: string[] = [];
      for await (const k of createS3BlobStore({
        bucket: server.bucket,
        client,
        conditional: 'emulated',
      }).list('sluice-probe/'))
        keys.push(k);
      expect(keys).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  it('emulated publish: once published, a key answers exists to every other store instance', async () => {
    // Another process's store: its own client, same bucket and prefix.
    const other = await openBlobStore(`s3://${server.bucket}/suite-prefix`, {
      env: { ...server.env, SLUICE_S3_CONDITIONAL: 'emulated' },
    });
    try {
      await store.put('emulated/mine', chunksOf('first'));
      await other.put('emulated/theirs', chunksOf('second'));
      expect(await store.publish('emulated/mine', 'emulated/final')).toBe('published');
      expect(await other.publish('emulated/theirs', 'emulated/final')).toBe('exists');
      expect(await textOf((await other.get('emulated/final'))!)).toBe('first');
      // A publish whose source vanished fails typed and leaves the target alone.
      await expect(other.publish('emulated/gone', 'emulated/final2')).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      expect(await other.stat('emulated/final2')).toBeUndefined();
    } finally {
      await other.close?.();
    }
  });

  it('keeps every key under its prefix, and two prefixes apart', async () => {
    const other = await openBlobStore(`s3://${server.bucket}/other-prefix`, {
      env: { ...server.env, SLUICE_S3_CONDITIONAL: 'emulated' },
    });
    try {
      await store.put('shared/name', chunksOf('mine'));
      await other.put('shared/name', chunksOf('theirs'));
      expect(await textOf((await store.get('shared/name'))!)).toBe('mine');
      expect(await textOf((await other.get('shared/name'))!)).toBe('theirs');
      const keys: string[] = [];
      for await (const k of other.list('shared/')) keys.push(k);
      expect(keys).toEqual(['shared/name']);
    } finally {
      await other.close?.();
    }
  });

  it('a presigned URL stops working when it expires', async () => {
    await store.put('expiring/x', chunksOf('soon gone'));
    // 2 s, not 1: the signature's date is truncated to the second, so a 1 s URL signed late in a
    // second may be expired a few ms later (seen under load: the first fetch got the 403).
    const url = await store.presignGet!('expiring/x', { expiresInSeconds: 2 });
    expect(await (await fetch(url)).text()).toBe('soon gone');
    await new Promise((r) => setTimeout(r, 3100));
    const late = await fetch(url);
    expect(late.status).toBe(403);
    await late.body?.cancel();
  });

  it('refuses configuration it cannot honour, before any request', async () => {
    const bad = [
      ['s3://Bad_Bucket/x', {}],
      ['s3://ok-bucket/x?region=eu', {}],
      ['s3://ok-bucket/x', { SLUICE_S3_ENDPOINT: 'ftp://x' }],
      ['s3://ok-bucket/x', { SLUICE_S3_CONDITIONAL: 'maybe' }],
      ['s3://ok-bucket/x', { SLUICE_S3_PART_SIZE_MIB: '1' }],
      ['s3://ok-bucket/x', { AWS_ACCESS_KEY_ID: 'only-half' }],
    ] as const;
    for (const [url, env] of bad) {
      await expect(openBlobStore(url, { env })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    }
  });
});
