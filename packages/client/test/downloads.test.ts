// Downloads end to end in a two-host shape: a gateway (in this process) and a worker (its own OS
// process) that share only PostgreSQL and an S3-protocol server (s3rver on a free port, private
// folder): no shared disk, no shared memory. A job's worker streams assets to S3 (one larger than a multipart part); the typed
// client lists and downloads them through the gateway, whole and ranged, and through presigned
// links; another tenant gets NOT_FOUND for all of it.

import { formatJobId } from '@sluice/contracts';
import {
  createEmbeddedDispatcher,
  createGateway,
  serve,
  type RunningGateway,
} from '@sluice/gateway';
import { createApiKey, openBlobStore, type BlobStore } from '@sluice/storage';
import {
  createTestDatabase,
  startS3Server,
  type S3Server,
  type TestDatabase,
} from '@sluice/storage/testing';
import { checkPattern, patternStream } from '@sluice/storage/testing/blobs';
import { spawnNode, type ChildHandle } from '@sluice/testkit';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createSluiceClient, type SluiceClient } from '../src/index.js';
import { renderJobs, type RenderJobs } from './fixtures/render-jobs.js';

/** The sha256 of `size` pattern bytes (what the worker streams). */
async function patternSha256(size: number): Promise<string> {
  const hash = createHash('sha256');
  const reader = patternStream(size).getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) hash.update(r.value);
  return hash.digest('hex');
}

const SIZE = 6 * 1024 * 1024 + 123; // past one 5 MiB part: a multipart upload

describe('downloads across hosts (gateway and worker processes share only PostgreSQL and S3)', () => {
  let s3: S3Server;
  let db: TestDatabase;
  let gatewayBlobs: BlobStore;
  let server: RunningGateway;
  let worker: ChildHandle;
  let a: SluiceClient<RenderJobs>;
  let b: SluiceClient<RenderJobs>;

  beforeAll(async () => {
    s3 = await startS3Server();
    db = await createTestDatabase('postgres');
    const { database } = db;
    // Each host opens its own store from the same configuration, as on two machines.
    const url = `s3://${s3.bucket}/sluice`;
    gatewayBlobs = await openBlobStore(url, { env: s3.env });
    const gateway = createGateway({
      jobs: renderJobs,
      database,
      blobs: gatewayBlobs,
      runtime: createEmbeddedDispatcher(database),
      logger: { warn() {}, error() {} },
      eventPollMs: 20,
      servedVersionsCacheMs: 0,
      uploads: { sweepIntervalMs: 0 },
    });
    server = await serve(gateway, { port: 0 });
    await gateway.hub.ready();
    worker = await spawnNode(new URL('./fixtures/s3-worker-child.ts', import.meta.url), {
      env: { ...s3.env, DATABASE_URL: db.url, SLUICE_BLOBS: url },
      readyLine: /^READY$/,
      readyTimeoutMs: 60_000,
    });
    const keyA = (await createApiKey(database.db, 'acme')).key;
    const keyB = (await createApiKey(database.db, 'globex')).key;
    a = createSluiceClient<RenderJobs>({ url: server.url, apiKey: keyA, WebSocket });
    b = createSluiceClient<RenderJobs>({ url: server.url, apiKey: keyB, WebSocket });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await worker?.kill();
    await server?.close();
    await gatewayBlobs?.close?.();
    await db?.dispose();
    await s3?.close();
  });

  it("a job's assets are listed and downloaded whole, ranged and by presigned link", async () => {
    const job = await a.submit('test.render', { bytes: SIZE });
    expect(await job.result()).toEqual({ size: SIZE });
    const sha256 = await patternSha256(SIZE);

    const assets = await job.assets();
    expect(assets.map((x) => [x.unit, x.name, x.size, x.contentType])).toEqual([
      [null, 'render.bin', SIZE, 'application/x-render'],
      ['scene-1', 'notes.txt', 15, 'text/plain'],
    ]);
    expect(assets[0]!.sha256).toBe(sha256);

    const whole = await job.download('render.bin');
    expect([whole.status, whole.size, whole.etag]).toEqual([200, SIZE, `"${sha256}"`]);
    expect(whole.contentType).toBe('application/x-render');
    const read = await checkPattern(whole.body);
    expect(read.size).toBe(SIZE);
    expect(read.chunks).toBeGreaterThan(1);

    // A range across the boundary of the first 5 MiB part.
    const offset = 5 * 1024 * 1024 - 10;
    const part = await job.download('render.bin', { range: { offset, length: 20 } });
    expect([part.status, part.size, part.range]).toEqual([206, SIZE, { offset, length: 20 }]);
    expect((await checkPattern(part.body, offset)).size).toBe(20);
    const tail = await job.download('render.bin', { range: { offset: SIZE - 3 } });
    expect((await checkPattern(tail.body, SIZE - 3)).size).toBe(3);

    const notes = await job.download('notes.txt', { unit: 'scene-1' });
    expect(await notes.text()).toBe('scene one notes');

    const past = await job
      .download('render.bin', { range: { offset: SIZE } })
      .catch((e: unknown) => e);
    expect(past).toMatchObject({ code: 'RANGE_NOT_SATISFIABLE', httpStatus: 416 });

    // The store can presign: the link goes to S3 itself and needs no key.
    const link = await job.assetUrl('render.bin', { expiresInSeconds: 60 });
    expect(link.url.startsWith(s3.endpoint)).toBe(true);
    expect(link.expiresAt.getTime()).toBeGreaterThan(Date.now());
    const direct = await fetch(link.url, { headers: { range: `bytes=${offset}-${offset + 19}` } });
    expect(direct.status).toBe(206);
    expect((await checkPattern(direct.body!, offset)).size).toBe(20);
  });

  it('an uploaded file comes back whole and ranged, from the store the gateway wrote', async () => {
    const text = 'uploaded through the gateway, stored in S3';
    const file = await a.upload(new TextEncoder().encode(text), {
      filename: 'note.txt',
      contentType: 'text/plain',
    });
    const whole = await a.files.download(file.id);
    expect([whole.status, whole.contentType, whole.etag]).toEqual([
      200,
      'text/plain',
      `"${file.sha256}"`,
    ]);
    expect(await whole.text()).toBe(text);
    const ranged = await a.files.download(file.id, { range: { offset: 9, length: 7 } });
    expect([ranged.status, await ranged.text()]).toEqual([206, 'through']);
    // The worker's own store instance reads what the gateway wrote: nothing local in between.
    const link = await a.files.signedUrl(file.id);
    const fetched = await fetch(link.url);
    expect(fetched.headers.get('content-type')).toBe('text/plain');
    expect(fetched.headers.get('content-disposition')).toContain('note.txt');
    expect(await fetched.text()).toBe(text);
  });

  it('another tenant can neither list, download nor link anything of it', async () => {
    const job = await a.submit('test.render', { bytes: 10 });
    await job.result();
    const file = await a.upload(new TextEncoder().encode('private'));
    const foreign = b.job(job.id, 'test.render');
    const refusals = [
      () => foreign.assets(),
      () => foreign.download('render.bin'),
      () => foreign.download('render.bin', { range: { offset: 0, length: 1 } }),
      () => foreign.assetUrl('render.bin'),
      () => b.files.download(file.id),
      () => b.files.signedUrl(file.id),
    ];
    for (const call of refusals) {
      expect(await call().catch((e: unknown) => e)).toMatchObject({ code: 'NOT_FOUND' });
    }
    // Exactly what a job or file that never existed answers.
    const ghost = b.job(formatJobId('v1'));
    const missing = await ghost.download('render.bin').catch((e: unknown) => e);
    const other = await foreign.download('render.bin').catch((e: unknown) => e);
    expect(other).toMatchObject({
      code: (missing as { code: string }).code,
      message: (missing as { message: string }).message,
      httpStatus: 404,
    });
  });
});
