// Uploads stream the raw body to `POST /v1/uploads`; the gateway hashes and stores it while it
// arrives and answers with the file. Browsers send a `File`/`Blob` (Chromium cannot stream a
// fetch request body over HTTP/1.1); Node streams, with `duplex: 'half'` as fetch requires.

import type { FileView } from '@sluice/contracts/wire';
import { abortReason } from './backoff.js';
import { responseError, toApiError } from './to-api-error.js';
import type { Transport } from './transport.js';
import type { UploadBody, UploadOptions } from './types.js';

type RequestBody = Blob | ReadableStream<Uint8Array> | Uint8Array | ArrayBuffer | string;

function isBlob(body: unknown): body is Blob {
  return typeof Blob !== 'undefined' && body instanceof Blob;
}

function isReadableStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}

function isAsyncIterable(body: unknown): body is AsyncIterable<Uint8Array> {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/** A web stream over any async iterable of bytes (a Node `Readable` is one). */
function toReadableStream(
  iterable: AsyncIterable<Uint8Array | string>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let iterator: AsyncIterator<Uint8Array | string> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      iterator ??= iterable[Symbol.asyncIterator]();
      const next = await iterator.next();
      if (next.done) controller.close();
      else
        controller.enqueue(
          typeof next.value === 'string' ? encoder.encode(next.value) : next.value,
        );
    },
    async cancel(reason) {
      await iterator?.return?.(reason);
    },
  });
}

function requestBody(body: UploadBody): { body: RequestBody; streamed: boolean } {
  if (isBlob(body) || typeof body === 'string' || body instanceof ArrayBuffer) {
    return { body, streamed: false };
  }
  if (body instanceof Uint8Array) return { body, streamed: false };
  if (isReadableStream(body)) return { body, streamed: true };
  if (isAsyncIterable(body)) return { body: toReadableStream(body), streamed: true };
  throw new TypeError('upload: body must be a Blob, a stream, an async iterable or bytes');
}

/**
 * Header values must be Latin-1, so the name always travels percent-encoded (the gateway decodes
 * it); encoding every name, not only non-ASCII ones, keeps a literal `%` in a name intact.
 */
function headerFilename(filename: string): string {
  return encodeURIComponent(filename);
}

export async function upload(
  transport: Transport,
  body: UploadBody,
  options: UploadOptions = {},
): Promise<FileView> {
  const { body: payload, streamed } = requestBody(body);
  const fileName =
    options.filename ?? (isBlob(body) && 'name' in body ? String(body.name) : undefined);
  const contentType =
    options.contentType || (isBlob(body) && body.type) || 'application/octet-stream';
  const headers: Record<string, string> = {
    authorization: await transport.authorization(),
    'content-type': contentType,
  };
  if (fileName) headers['x-filename'] = headerFilename(fileName);
  let response: Response;
  try {
    response = await transport.fetch(transport.endpoints.upload, {
      method: 'POST',
      headers,
      body: payload as BodyInit,
      ...(streamed ? { duplex: 'half' } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    } as RequestInit);
  } catch (error) {
    if (options.signal?.aborted) throw abortReason(options.signal);
    throw toApiError(error);
  }
  if (response.status !== 201 && response.status !== 200) throw await responseError(response);
  return (await response.json()) as FileView;
}
