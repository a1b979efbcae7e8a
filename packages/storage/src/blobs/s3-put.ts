// The body of an S3 `put`: streamed, measured (blob-body.ts), into lib-storage's
// `Upload` (multipart past one part, so at most `partSize × queueSize` bytes are in memory); the
// byte limit and the abort signal end it mid-stream, and a failed upload leaves no parts.

import { type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { measureBody } from './blob-body.js';
import { blobContentType, type BlobBody, type PutOptions, type PutResult } from './blob-store.js';

export interface S3PutTarget {
  client: S3Client;
  Bucket: string;
  Key: string;
  partSize: number;
  queueSize: number;
}

export async function putS3Object(
  { client, Bucket, Key, partSize, queueSize }: S3PutTarget,
  body: BlobBody,
  opts: PutOptions = {},
): Promise<PutResult> {
  const ContentType = blobContentType(opts.contentType);
  opts.signal?.throwIfAborted();
  const measured = measureBody(body, opts);
  const source = Readable.from(measured.chunks, { objectMode: false });
  let failure: unknown;
  source.once('error', (error) => (failure ??= error));
  const upload = new Upload({
    client,
    params: { Bucket, Key, Body: source, ContentType },
    partSize,
    queueSize,
    // A failed multipart upload is aborted: no parts are left to bill.
    leavePartsOnError: false,
  });
  const onAbort = () => void upload.abort().catch(() => {});
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const out = await upload.done();
    return { size: measured.size(), sha256: measured.sha256(), etag: out.ETag ?? '' };
  } catch (error) {
    // The body's own error (over the limit, aborted) says more than the upload's.
    throw failure ?? error;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    source.destroy();
  }
}
