// The R2 blob store's own cases against a real R2 bucket in workerd (miniflare): known-length and
// multipart puts, sizes, etags. The shared BlobStore conformance suite runs on it too
// (r2-blob-store-suite.test.ts).
import { isSluiceError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { createR2BlobStore, R2_PART_BYTES } from '../src/blobs/r2-blob-store.js';
import type { R2BucketLike } from '../src/blobs/r2-like.js';
import { bindings } from './bindings.js';

const MiB = 1024 * 1024;
const byte = (p: number) => (p * 31 + Math.floor(p / 65_536)) & 255;

/** `size` pattern bytes in chunks, produced only when read (`before` may look around first). */
async function* pattern(
  size: number,
  chunk = 256 * 1024,
  before?: (produced: number) => void,
): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < size; at += chunk) {
    before?.(at);
    const out = new Uint8Array(Math.min(chunk, size - at));
    for (let i = 0; i < out.length; i++) out[i] = byte(at + i);
    yield out;
  }
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function checkPattern(bytes: Uint8Array, offset = 0): void {
  for (let i = 0; i < bytes.length; i++)
    if (bytes[i] !== byte(offset + i)) throw new Error(`byte ${offset + i} differs`);
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function patternBytes(size: number): Promise<Uint8Array<ArrayBuffer>> {
  const out = new Uint8Array(size);
  let at = 0;
  for await (const c of pattern(size)) out.set(c, (at += c.length) - c.length);
  return out;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isSluiceError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a SluiceError');
}

/** The real bucket, with its multipart part uploads counted (a view, not a stand-in). */
function countingBucket(bucket: R2BucketLike) {
  const seen = { parts: 0, aborted: 0 };
  const wrapped: R2BucketLike = {
    head: (k) => bucket.head(k),
    get: (k, o) => bucket.get(k, o),
    put: (k, v, o) => bucket.put(k, v, o),
    delete: (k) => bucket.delete(k),
    list: (o) => bucket.list(o),
    async createMultipartUpload(k, o) {
      const upload = await bucket.createMultipartUpload(k, o);
      return {
        uploadPart: async (n, v) => {
          const r = await upload.uploadPart(n, v);
          seen.parts++;
          return r;
        },
        complete: (parts) => upload.complete(parts),
        abort: async () => {
          seen.aborted++;
          await upload.abort();
        },
      };
    },
  };
  return { bucket: wrapped, seen };
}

const store = createR2BlobStore(bindings.BLOBS);

describe('R2 blob store', () => {
  it('round-trip: streams a body in with size and sha256, known length or not, and reads it back', async () => {
    const expected = await sha256Hex(await patternBytes(300_000));
    const streamed = await store.put('rt/unknown', pattern(300_000, 4096));
    expect(streamed).toMatchObject({ size: 300_000, sha256: expected });
    const known = await store.put('rt/known', pattern(300_000, 4096), { size: 300_000 });
    expect(known).toMatchObject({ size: 300_000, sha256: expected });
    for (const key of ['rt/unknown', 'rt/known']) {
      checkPattern(await bytesOf((await store.get(key))!));
      expect(await store.stat(key)).toMatchObject({ size: 300_000 });
    }
    const web = await store.put('rt/web', new Blob(['hello']).stream());
    expect(web.size).toBe(5);
    expect(await new Response((await store.get('rt/web'))!).text()).toBe('hello');
    const empty = await store.put('rt/empty', pattern(0));
    expect(empty).toMatchObject({ size: 0, sha256: await sha256Hex(new Uint8Array(0)) });
  });

  it('content-metadata: the content type is stored and answered', async () => {
    await store.put('meta/a', pattern(10), { contentType: 'image/png' });
    expect(await store.stat('meta/a')).toMatchObject({ contentType: 'image/png' });
    await store.put('meta/b', pattern(10), { size: 10 });
    expect((await store.open('meta/b')).contentType).toBe('application/octet-stream');
  });

  it('over-limit: cut at the first byte over maxBytes, nothing stored, multipart aborted', async () => {
    expect(await codeOf(store.put('limit/a', pattern(1000, 100), { maxBytes: 250 }))).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(await store.stat('limit/a')).toBeUndefined();
    expect((await store.put('limit/edge', pattern(250), { maxBytes: 250 })).size).toBe(250);
    // a declared size over the limit is refused before reading anything
    expect(await codeOf(store.put('limit/b', pattern(300), { size: 300, maxBytes: 250 }))).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(await store.stat('limit/b')).toBeUndefined();
    // past the limit after a part went up: the upload is aborted, no object appears
    const { bucket, seen } = countingBucket(bindings.BLOBS);
    const counted = createR2BlobStore(bucket);
    const maxBytes = R2_PART_BYTES + MiB;
    expect(await codeOf(counted.put('limit/c', pattern(8 * MiB), { maxBytes }))).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(seen).toEqual({ parts: 1, aborted: 1 });
    expect(await store.stat('limit/c')).toBeUndefined();
  });

  it('a body shorter or longer than its declared size stores nothing', async () => {
    expect(await codeOf(store.put('len/short', pattern(100), { size: 200 }))).toBe('BAD_REQUEST');
    expect(await codeOf(store.put('len/long', pattern(300), { size: 200 }))).toBe('BAD_REQUEST');
    expect(await store.stat('len/short')).toBeUndefined();
    expect(await store.stat('len/long')).toBeUndefined();
  });

  it('aborted-put: an aborted body stores nothing', async () => {
    for (const size of [undefined, 2 * MiB]) {
      const ctl = new AbortController();
      const key = `abort/${size ?? 'unknown'}`;
      const body = pattern(2 * MiB, 64 * 1024, (at) => {
        if (at >= MiB) ctl.abort(new Error('client went away'));
      });
      await expect(store.put(key, body, { signal: ctl.signal, size })).rejects.toThrow();
      expect(await store.stat(key)).toBeUndefined();
    }
  });

  it('large-object-streams: 5 MiB parts go up while the body is still being read', async () => {
    const { bucket, seen } = countingBucket(bindings.BLOBS);
    const counted = createR2BlobStore(bucket);
    const size = 12 * MiB + 123;
    let partsBeforeEnd = -1;
    const body = pattern(size, 256 * 1024, (at) => {
      if (at >= 11 * MiB && partsBeforeEnd < 0) partsBeforeEnd = seen.parts;
    });
    const r = await counted.put('large/unknown', body);
    expect(r.size).toBe(size);
    expect(partsBeforeEnd).toBe(2); // two whole parts sent before the last MiB was even produced
    expect(seen.parts).toBe(3);
    const object = await store.open('large/unknown');
    expect(object.size).toBe(size);
    checkPattern(await bytesOf(object.body));
    // known length: one streamed put through FixedLengthStream, no multipart
    const known = await counted.put('large/known', pattern(6 * MiB), { size: 6 * MiB });
    expect(known.size).toBe(6 * MiB);
    expect(seen.parts).toBe(3);
    checkPattern(await bytesOf((await store.get('large/known'))!));
  });

  it('ranged-reads: any range streams exactly its bytes; past the end is refused', async () => {
    await store.put('range/a', pattern(100_000));
    for (const [offset, length] of [
      [0, 10],
      [99_990, 10],
      [65_530, 20],
      [500, undefined],
      [99_999, 500],
    ] as const) {
      const o = await store.open('range/a', { range: { offset, length } });
      const bytes = await bytesOf(o.body);
      expect(o.range).toEqual({ offset, length: bytes.length });
      expect(bytes.length).toBe(Math.min(length ?? 100_000, 100_000 - offset));
      checkPattern(bytes, offset);
      expect(o.size).toBe(100_000);
    }
    expect(await codeOf(store.open('range/a', { range: { offset: 100_000 } }))).toBe(
      'RANGE_NOT_SATISFIABLE',
    );
    expect(await codeOf(store.open('range/a', { range: { offset: -1 } }))).toBe(
      'RANGE_NOT_SATISFIABLE',
    );
    await store.put('range/empty', pattern(0));
    const empty = await store.open('range/empty', { range: { offset: 0 } });
    expect((await bytesOf(empty.body)).length).toBe(0);
  });

  it('missing-keys: absent everywhere, NOT_FOUND where a blob is required', async () => {
    expect(await store.get('missing/x')).toBeUndefined();
    expect(await store.stat('missing/x')).toBeUndefined();
    expect(await store.delete('missing/x')).toBe(false);
    expect(await codeOf(store.open('missing/x'))).toBe('NOT_FOUND');
    expect(await codeOf(store.publish('missing/x', 'missing/y'))).toBe('NOT_FOUND');
    expect(await store.stat('missing/y')).toBeUndefined();
  });

  it('put-if-absent-publish: a published key is never overwritten', async () => {
    await store.put('staging/a1', new Blob(['aaa']).stream(), { contentType: 'text/plain' });
    await store.put('staging/a2', new Blob(['zzz']).stream());
    expect(await store.publish('staging/a1', 'final/x')).toBe('published');
    expect(await store.stat('staging/a1')).toBeUndefined();
    expect(await store.publish('staging/a2', 'final/x')).toBe('exists');
    expect(await new Response((await store.get('final/x'))!).text()).toBe('aaa');
    expect(await store.stat('final/x')).toMatchObject({ size: 3, contentType: 'text/plain' });
    expect(await store.stat('staging/a2')).toMatchObject({ size: 3 }); // left for its owner
    expect(await store.delete('staging/a2')).toBe(true);
    expect(await store.delete('staging/a2')).toBe(false);
  });

  it('concurrent-publish: of two racing publishes to one key, exactly one lands', async () => {
    const sources = ['b1', 'b2', 'b3', 'b4'];
    for (const s of sources) await store.put(`staging/${s}`, new Blob([s]).stream());
    const results = await Promise.all(
      sources.map((s) => store.publish(`staging/${s}`, 'final/race')),
    );
    expect(results.filter((r) => r === 'published')).toHaveLength(1);
    const winner = sources[results.indexOf('published')];
    expect(await new Response((await store.get('final/race'))!).text()).toBe(winner);
  });

  it('delete-if-match: an owner deletes only the version it wrote', async () => {
    const first = await store.put('own/k', new Blob(['one']).stream());
    const second = await store.put('own/k', new Blob(['two']).stream());
    expect(first.etag).not.toBe(second.etag);
    expect(await store.deleteIfMatch('own/k', first.etag)).toBe('not_owner');
    expect(await new Response((await store.get('own/k'))!).text()).toBe('two');
    expect(await store.deleteIfMatch('own/k', second.etag)).toBe('deleted');
    expect(await store.deleteIfMatch('own/k', second.etag)).toBe('missing');
  });

  it('list-prefix: keys under a prefix', async () => {
    await store.put('list/p/one', pattern(1));
    await store.put('list/p/two', pattern(1));
    await store.put('list/q/three', pattern(1));
    const keys: string[] = [];
    for await (const k of store.list('list/p/')) keys.push(k);
    expect(keys.sort()).toEqual(['list/p/one', 'list/p/two']);
  });

  it('invalid-keys: refused before R2 is touched', async () => {
    for (const k of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', '', 'a\\b', 'a/b/']) {
      expect(await codeOf(store.put(k, pattern(1)))).toBe('BAD_REQUEST');
      expect(await codeOf(store.stat(k))).toBe('BAD_REQUEST');
    }
  });

  const presign = 'the binding cannot presign a URL (that needs S3-API credentials)';
  console.log(`[r2] not applicable: "presigned-get": ${presign}`);
  it.skip(`presigned-get — not applicable on R2: ${presign}`, () => {});
});
