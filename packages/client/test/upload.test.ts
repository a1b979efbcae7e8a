// Uploads from Node stream the body (never buffered by the client), and the file id then goes
// into a job that reads it back: size and SHA-256 must match end to end.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { WebSocket } from 'ws';
import { expect, it } from 'vitest';
import { createSluiceClient, isSluiceApiError, type SluiceClient } from '../src/index.js';
import type { TestJobs } from './fixtures/jobs.js';
import { describeStack, type Stack } from './fixtures/stack.js';

const MAX_UPLOAD = 256 * 1024;

function clientOf(stack: Stack): SluiceClient<TestJobs> {
  return createSluiceClient<TestJobs>({ url: stack.url, apiKey: stack.apiKey, WebSocket });
}

/** `count` chunks of 16 KiB, produced lazily (the body only exists as a stream). */
function chunks(count: number): { stream: Readable; size: number; sha256: string } {
  const hash = createHash('sha256');
  const all: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const chunk = Buffer.alloc(16 * 1024, i % 251);
    hash.update(chunk);
    all.push(chunk);
  }
  return {
    stream: Readable.from(all),
    size: count * 16 * 1024,
    sha256: hash.digest('hex'),
  };
}

describeStack(
  'uploads',
  (stack) => {
    it('streams a Node Readable, then a job reads the same bytes', async () => {
      const client = clientOf(stack());
      try {
        const body = chunks(10);
        const file = await client.upload(body.stream, {
          filename: 'données 100%.bin',
          contentType: 'text/csv',
        });
        expect(file).toMatchObject({
          size: body.size,
          sha256: body.sha256,
          filename: 'données 100%.bin',
          contentType: 'text/csv',
        });
        expect(file.id).toMatch(/^f_/);
        const handle = await client.submit(
          'test.digest',
          { fileId: file.id },
          { fileIds: [file.id] },
        );
        expect(await handle.result()).toEqual({ size: body.size, sha256: body.sha256 });
        expect((await handle.status()).fileIds).toEqual([file.id]);

        expect(file.expiresAt).not.toBeNull();
        // Attached to a job, the file no longer expires.
        expect(await client.files.get(file.id)).toEqual({ ...file, expiresAt: null });
        expect((await client.files.list()).items.map((f) => f.id)).toContain(file.id);
        await client.files.delete(file.id);
        expect(await client.files.get(file.id).catch((e: unknown) => e)).toMatchObject({
          code: 'NOT_FOUND',
        });
      } finally {
        await client.close();
      }
    });

    it('uploads a web ReadableStream, bytes and a Blob', async () => {
      const client = clientOf(stack());
      try {
        const text = 'hello, sluice\n';
        const web = await client.upload(new Blob([text]).stream(), { filename: 'a.txt' });
        const bytes = await client.upload(new TextEncoder().encode(text));
        const blob = await client.upload(new File([text], 'b.txt', { type: 'text/plain' }));
        const sha = createHash('sha256').update(text).digest('hex');
        for (const file of [web, bytes, blob]) expect(file).toMatchObject({ sha256: sha });
        expect([web.filename, bytes.filename, blob.filename]).toEqual(['a.txt', null, 'b.txt']);
        expect([bytes.contentType, blob.contentType]).toEqual([
          'application/octet-stream',
          'text/plain',
        ]);
      } finally {
        await client.close();
      }
    });

    it('a stream over the limit is PAYLOAD_TOO_LARGE', async () => {
      const client = clientOf(stack());
      try {
        const error = await client.upload(chunks(40).stream).catch((e: unknown) => e);
        expect(isSluiceApiError(error)).toBe(true);
        expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
        const declared = await client
          .upload(new Uint8Array(MAX_UPLOAD + 1))
          .catch((e: unknown) => e);
        expect(declared).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
      } finally {
        await client.close();
      }
    });
  },
  { maxUploadBytes: MAX_UPLOAD },
);
