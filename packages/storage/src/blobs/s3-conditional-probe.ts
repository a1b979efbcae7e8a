// Whether an S3-compatible server honours conditional requests, found by trying: the answer
// decides between atomic and emulated publish / deleteIfMatch (s3-blob-store.ts).

import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import {
  createS3BlobStore,
  type S3BlobStoreOptions,
  type S3ConditionalMode,
} from './s3-blob-store.js';

/**
 * Tries, on probe keys under `<prefix>/sluice-probe/`, whether the server honours
 * `If-None-Match: *` on CopyObject and `If-Match` on DeleteObject; 'native' only if both hold.
 */
export async function probeS3Conditional(
  options: Omit<S3BlobStoreOptions, 'conditional' | 'client'> & { client: S3Client },
): Promise<S3ConditionalMode> {
  const store = createS3BlobStore({ ...options, conditional: 'native' });
  const dir = `sluice-probe/${randomUUID()}`;
  const bytes = async function* () {
    yield new TextEncoder().encode('probe');
  };
  try {
    await store.put(`${dir}/a`, bytes());
    await store.put(`${dir}/target`, bytes());
    // A server that ignores If-None-Match copies over the target and the source goes.
    await store.publish(`${dir}/a`, `${dir}/target`).catch(() => 'failed');
    const copyHonoured = (await store.stat(`${dir}/a`)) !== undefined;
    // A server that ignores If-Match deletes the key despite the wrong etag.
    await store.put(`${dir}/b`, bytes());
    const base = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    const Key = base ? `${base}/${dir}/b` : `${dir}/b`;
    await options.client
      .send(new DeleteObjectCommand({ Bucket: options.bucket, Key, IfMatch: '"not-this-one"' }))
      .catch(() => undefined);
    const deleteHonoured = (await store.stat(`${dir}/b`)) !== undefined;
    return copyHonoured && deleteHonoured ? 'native' : 'emulated';
  } finally {
    for await (const key of store.list(`${dir}/`)) await store.delete(key).catch(() => false);
  }
}
