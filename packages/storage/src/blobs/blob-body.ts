// A blob body is an async iterable or a web stream; Node's stream helpers want one of them.
// What every Node store's `put` does to a body on its way: count, hash, refuse past the limit.

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { SluiceError } from '@sluice/contracts';
import type { BlobBody, PutOptions } from './blob-store.js';

export function toAsyncIterable(body: BlobBody): AsyncIterable<Uint8Array> {
  return Symbol.asyncIterator in body
    ? (body as AsyncIterable<Uint8Array>)
    : (Readable.fromWeb(body as never) as AsyncIterable<Uint8Array>);
}

/** The first `n` bytes of `source`; the rest is cancelled, not read. */
export function takeBytes(
  source: ReadableStream<Uint8Array>,
  n: number,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let left = n;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left <= 0) {
        controller.close();
        await reader.cancel();
        return;
      }
      const next = await reader.read();
      if (next.done) return controller.close();
      const chunk = next.value.byteLength > left ? next.value.subarray(0, left) : next.value;
      left -= chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** A body read once, measured as it passes (a store writes `chunks` wherever it keeps bytes). */
export interface MeasuredBody {
  readonly chunks: AsyncIterable<Uint8Array>;
  /** Bytes read so far: all of them once `chunks` is done. */
  size(): number;
  /** The sha256 (hex) of the body: once `chunks` is done. */
  sha256(): string;
}

/**
 * `body` counted and hashed chunk by chunk; past `maxBytes` it fails with PAYLOAD_TOO_LARGE, and
 * an aborted `signal` fails it between chunks and at the end, so no store keeps a partial body.
 */
export function measureBody(
  body: BlobBody,
  opts: Pick<PutOptions, 'maxBytes' | 'signal'>,
): MeasuredBody {
  const hash = createHash('sha256');
  let size = 0;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of toAsyncIterable(body)) {
      opts.signal?.throwIfAborted();
      size += chunk.byteLength;
      if (opts.maxBytes !== undefined && size > opts.maxBytes) {
        throw new SluiceError('PAYLOAD_TOO_LARGE', `body exceeds ${opts.maxBytes} bytes`, {
          details: { maxBytes: opts.maxBytes },
        });
      }
      hash.update(chunk);
      yield chunk;
    }
    opts.signal?.throwIfAborted();
  }
  return { chunks: chunks(), size: () => size, sha256: () => hash.digest('hex') };
}
