// A blob body is an async iterable or a web stream; Node's stream helpers want one of them.

import { Readable } from 'node:stream';
import type { BlobBody } from './blob-store.js';

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
