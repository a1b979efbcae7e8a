// A blob body is an async iterable or a web stream; Node's stream helpers want one of them.

import { Readable } from 'node:stream';
import type { BlobBody } from './blob-store.js';

export function toAsyncIterable(body: BlobBody): AsyncIterable<Uint8Array> {
  return Symbol.asyncIterator in body
    ? (body as AsyncIterable<Uint8Array>)
    : (Readable.fromWeb(body as never) as AsyncIterable<Uint8Array>);
}
