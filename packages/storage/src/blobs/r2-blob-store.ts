// Blobs on Cloudflare R2 through the Worker binding. Every body streams: a put whose length is
// known goes through `FixedLengthStream` in one `put` (R2 refuses a stream of unknown length); an
// unknown length goes up as a multipart upload in 5 MiB parts, holding one part in memory at a
// time (a body under one part is sent as a single `put` of that part). Size and sha256 are
// computed on the way (`crypto.DigestStream`). A body past `maxBytes`, shorter or longer than its
// declared size, or aborted stores nothing: the single put is atomic, the multipart upload is
// aborted.
//
// `publish` is R2's put-if-absent (`onlyIf: { etagDoesNotMatch: '*' }`): atomic, so a published
// key is never overwritten. R2 has no conditional delete, so `deleteIfMatch` compares the etag,
// then deletes (capabilities.atomicDeleteIfMatch is false); the keys it guards are per-attempt
// staging keys, which nobody else writes.
import { SluiceError } from '@sluice/contracts';
import { assertBlobKey } from './blob-key-pattern.js';
import type { BlobBody, BlobStat, BlobStore, PutResult } from './blob-store.js';
import { rangeNotSatisfiable, resolveBlobRange } from './blob-store.js';
import { workerdGlobals, type R2BucketLike, type R2ObjectLike } from './r2-like.js';

/** R2's smallest multipart part (all parts but the last must have one size, at least this). */
export const R2_PART_BYTES = 5 * 1024 * 1024;
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

export interface R2PutOptions {
  maxBytes?: number | undefined;
  signal?: AbortSignal | undefined;
  contentType?: string | undefined;
  /** The body's length when known (e.g. a request's Content-Length): one streamed `put`. */
  size?: number | undefined;
}

export interface R2PutResult extends PutResult {
  /** This write of the key: `deleteIfMatch` with it deletes only this version. */
  etag: string;
}

export interface R2BlobStat extends BlobStat {
  contentType: string;
  etag: string;
}

export interface R2BlobObject extends R2BlobStat {
  body: ReadableStream<Uint8Array>;
  /** The bytes `body` carries. */
  range: { offset: number; length: number };
}

export interface R2BlobStore extends BlobStore {
  readonly capabilities: {
    readonly atomicPublish: true;
    readonly atomicDeleteIfMatch: false;
    readonly presignGet: false;
  };
  put(key: string, body: BlobBody, opts?: R2PutOptions): Promise<R2PutResult>;
  stat(key: string): Promise<R2BlobStat | undefined>;
  /** The blob or a byte range of it, streamed. NOT_FOUND when missing; RANGE_NOT_SATISFIABLE past the end. */
  open(key: string, opts?: { range?: { offset: number; length?: number } }): Promise<R2BlobObject>;
  /** Deletes `key` only while it is still the write `etag` names. */
  deleteIfMatch(key: string, etag: string): Promise<'deleted' | 'missing' | 'not_owner'>;
}

async function* chunksOf(body: BlobBody): AsyncGenerator<Uint8Array> {
  if (Symbol.asyncIterator in body) {
    yield* body as AsyncIterable<Uint8Array>;
    return;
  }
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

const hex = (buf: ArrayBuffer) =>
  [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

const statOf = (o: R2ObjectLike): R2BlobStat => ({
  size: o.size,
  contentType: o.httpMetadata?.contentType ?? DEFAULT_CONTENT_TYPE,
  etag: o.etag,
});

/** Counts, limits and hashes the bytes of one put. */
function meter(opts: R2PutOptions) {
  const { DigestStream } = workerdGlobals();
  const digest = new DigestStream('SHA-256');
  const hash = digest.getWriter();
  // An aborted put aborts the hash too: its promises then reject with nobody waiting on them.
  digest.digest.catch(() => {});
  hash.closed.catch(() => {});
  let size = 0;
  return {
    get size() {
      return size;
    },
    async take(chunk: Uint8Array): Promise<void> {
      opts.signal?.throwIfAborted();
      size += chunk.byteLength;
      if (opts.maxBytes !== undefined && size > opts.maxBytes)
        throw new SluiceError('PAYLOAD_TOO_LARGE', `body exceeds ${opts.maxBytes} bytes`, {
          details: { maxBytes: opts.maxBytes },
        });
      if (opts.size !== undefined && size > opts.size)
        throw new SluiceError('BAD_REQUEST', `body is longer than its declared ${opts.size} bytes`);
      await hash.write(chunk.slice());
    },
    async sha256(): Promise<string> {
      await hash.close();
      return hex(await digest.digest);
    },
    abort: () => hash.abort().catch(() => {}),
  };
}

export function createR2BlobStore(bucket: R2BucketLike): R2BlobStore {
  async function putKnown(key: string, body: BlobBody, opts: R2PutOptions & { size: number }) {
    const { FixedLengthStream } = workerdGlobals();
    const m = meter(opts);
    const { readable, writable } = new FixedLengthStream(opts.size);
    const writer = writable.getWriter();
    writer.closed.catch(() => {}); // rejects when the put is abandoned; handled below
    const contentType = opts.contentType ?? DEFAULT_CONTENT_TYPE;
    const putting = bucket.put(key, readable, { httpMetadata: { contentType } });
    try {
      for await (const chunk of chunksOf(body)) {
        await m.take(chunk);
        await writer.write(chunk);
      }
      if (m.size !== opts.size)
        throw new SluiceError('BAD_REQUEST', `body is ${m.size} bytes, declared ${opts.size}`);
      await writer.close();
      const object = (await putting) as R2ObjectLike;
      return { size: m.size, sha256: await m.sha256(), etag: object.etag };
    } catch (error) {
      await writer.abort(error).catch(() => {});
      await putting.catch(() => {});
      await m.abort();
      throw error;
    }
  }

  async function putStreamed(key: string, body: BlobBody, opts: R2PutOptions) {
    const m = meter(opts);
    const httpMetadata = { contentType: opts.contentType ?? DEFAULT_CONTENT_TYPE };
    // The bytes not sent yet: less than one part (a small body never allocates a whole part).
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let upload: Awaited<ReturnType<R2BucketLike['createMultipartUpload']>> | undefined;
    const parts: { partNumber: number; etag: string }[] = [];
    /** The first `n` pending bytes as one buffer (the rest stays pending). */
    const take = (n: number): Uint8Array => {
      const out = new Uint8Array(n);
      let filled = 0;
      while (filled < n) {
        const head = pending[0] as Uint8Array;
        const k = Math.min(head.byteLength, n - filled);
        out.set(head.subarray(0, k), filled);
        filled += k;
        if (k === head.byteLength) pending.shift();
        else pending[0] = head.subarray(k);
      }
      pendingBytes -= n;
      return out;
    };
    const send = async (bytes: Uint8Array) => {
      upload ??= await bucket.createMultipartUpload(key, { httpMetadata });
      parts.push(await upload.uploadPart(parts.length + 1, bytes));
    };
    try {
      for await (const chunk of chunksOf(body)) {
        await m.take(chunk);
        pending.push(chunk.slice()); // the source may reuse its buffer once read
        pendingBytes += chunk.byteLength;
        while (pendingBytes >= R2_PART_BYTES) await send(take(R2_PART_BYTES));
      }
      const rest = take(pendingBytes);
      pending = [];
      let object: R2ObjectLike | null;
      if (!upload) object = await bucket.put(key, rest, { httpMetadata });
      else {
        if (rest.byteLength > 0) await send(rest);
        object = await upload.complete(parts);
      }
      return { size: m.size, sha256: await m.sha256(), etag: (object as R2ObjectLike).etag };
    } catch (error) {
      await upload?.abort().catch(() => {});
      await m.abort();
      throw error;
    }
  }

  return {
    capabilities: { atomicPublish: true, atomicDeleteIfMatch: false, presignGet: false },
    async put(key, body, opts = {}) {
      assertBlobKey(key);
      if (opts.size !== undefined) {
        if (!Number.isSafeInteger(opts.size) || opts.size < 0)
          throw new SluiceError('BAD_REQUEST', 'invalid body size');
        if (opts.maxBytes !== undefined && opts.size > opts.maxBytes)
          throw new SluiceError('PAYLOAD_TOO_LARGE', `body exceeds ${opts.maxBytes} bytes`, {
            details: { maxBytes: opts.maxBytes },
          });
        return putKnown(key, body, { ...opts, size: opts.size });
      }
      return putStreamed(key, body, opts);
    },
    async get(key) {
      const object = await bucket.get(assertBlobKey(key));
      return object && 'body' in object ? object.body : undefined;
    },
    async open(key, opts = {}) {
      assertBlobKey(key);
      // The size first (a range is checked against it), then the bytes of exactly that version.
      for (let tries = 0; tries < 3; tries++) {
        const head = await bucket.head(key);
        if (!head) throw new SluiceError('NOT_FOUND', `blob "${key}" does not exist`);
        const range = resolveBlobRange(opts.range, head.size);
        if (!range) throw rangeNotSatisfiable(head.size);
        if (range.length === 0)
          return {
            ...statOf(head),
            range,
            body: new Blob([]).stream() as ReadableStream<Uint8Array>,
          };
        const object = await bucket.get(key, { range, onlyIf: { etagMatches: head.etag } });
        if (!object) throw new SluiceError('NOT_FOUND', `blob "${key}" does not exist`);
        if ('body' in object) return { ...statOf(head), range, body: object.body };
        // Rewritten between head and get: read the new version's size again.
      }
      throw new SluiceError('CONFLICT', `blob "${key}" keeps changing`);
    },
    async stat(key) {
      const head = await bucket.head(assertBlobKey(key));
      return head ? statOf(head) : undefined;
    },
    async delete(key) {
      const existed = (await bucket.head(assertBlobKey(key))) !== null;
      if (existed) await bucket.delete(key);
      return existed;
    },
    async deleteIfMatch(key, etag) {
      const head = await bucket.head(assertBlobKey(key));
      if (!head) return 'missing';
      if (head.etag !== etag) return 'not_owner';
      await bucket.delete(key);
      return 'deleted';
    },
    async publish(from, to) {
      assertBlobKey(from);
      assertBlobKey(to);
      // Cheap early answer; the conditional put below is what guarantees it.
      if (await bucket.head(to)) return 'exists';
      const source = await bucket.get(from);
      if (!source || !('body' in source))
        throw new SluiceError('NOT_FOUND', `blob "${from}" does not exist`);
      // An R2 body has a known length, so it streams straight into the put.
      const put = await bucket.put(to, source.body, {
        onlyIf: { etagDoesNotMatch: '*' },
        httpMetadata: source.httpMetadata ?? {},
        ...(source.customMetadata ? { customMetadata: source.customMetadata } : {}),
      });
      if (!put) {
        await source.body.cancel().catch(() => {});
        return 'exists';
      }
      await bucket.delete(from);
      return 'published';
    },
    async *list(prefix) {
      let cursor: string | undefined;
      do {
        const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
        for (const o of page.objects) yield o.key;
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
    },
  };
}
