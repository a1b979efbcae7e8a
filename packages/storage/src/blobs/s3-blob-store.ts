// Blobs in an S3-compatible bucket (AWS S3, R2's S3 API, MinIO, s3rver). Bodies stream both
// ways: `put` streams into a multipart upload (s3-put.ts), `open` hands back the response body
// as a web stream (a byte range is a `Range` request).
//
// Write-if-absent and owner-checked deletes depend on the server:
// - 'native': CopyObject with `If-None-Match: *` publishes (412 → 'exists'), DeleteObject with
//   `If-Match: <etag>` deletes (412 → 'not_owner'): one atomic step each (AWS S3, R2).
// - 'emulated' (servers that ignore those headers, such as s3rver): publish is HEAD the target,
//   then copy, then delete the source; deleteIfMatch is HEAD, compare, delete. Guarantee: once a
//   publish of a key has finished, every later publish of it answers 'exists' and overwrites
//   nothing; a publish that fails leaves the target as it was. NOT guaranteed: two publishers
//   racing on one key at the same moment can both copy (the later copy wins). The asset
//   protocol never races there: it publishes inside the database transaction that checks the
//   ownership row and holds the job, so one attempt at a time publishes a given final key.
// `openBlobStore` with mode 'auto' (the default) finds out which by trying once (s3-conditional-probe.ts).

import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SluiceError } from '@sluice/contracts';
import { takeBytes } from './blob-body.js';
import { assertBlobKey } from './blob-keys.js';
import {
  blobNotFound,
  rangeNotSatisfiable,
  type BlobBody,
  type BlobObject,
  type BlobStore,
  type PutOptions,
} from './blob-store.js';
import { putS3Object } from './s3-put.js';

export type S3ConditionalMode = 'native' | 'emulated';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Keys live under `<prefix>/` (no leading or trailing slash); empty: the bucket's root. */
  prefix?: string | undefined;
  /** A client, or the config to build one (endpoint, region, credentials, forcePathStyle). */
  client: S3Client | S3ClientConfig;
  conditional: S3ConditionalMode;
  /** Multipart part size in bytes (default and minimum 5 MiB). */
  partSize?: number | undefined;
  /** Parts uploaded at once (default 2). */
  queueSize?: number | undefined;
}

const MIN_PART = 5 * 1024 * 1024;

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isMissing(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound' || httpStatus(error) === 404;
}

function isPreconditionFailed(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  // 409 ConditionalRequestConflict: another conditional write on the key is in flight.
  return name === 'PreconditionFailed' || httpStatus(error) === 412 || httpStatus(error) === 409;
}

/** A client for third-party S3 servers: path-style, and checksums only where the API needs them. */
export function createS3Client(config: S3ClientConfig): S3Client {
  return new S3Client({
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...config,
  });
}

export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const client =
    options.client instanceof S3Client ? options.client : createS3Client(options.client);
  const ownsClient = !(options.client instanceof S3Client);
  const Bucket = options.bucket;
  const base = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
  const partSize = Math.max(MIN_PART, options.partSize ?? MIN_PART);
  const queueSize = options.queueSize ?? 2;
  const native = options.conditional === 'native';
  const objectKey = (key: string) => (base ? `${base}/${assertBlobKey(key)}` : assertBlobKey(key));

  async function head(key: string) {
    try {
      const h = await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
      return {
        size: h.ContentLength ?? 0,
        contentType: h.ContentType ?? 'application/octet-stream',
        etag: h.ETag ?? '',
      };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  // Async, so a key refused by `objectKey` rejects like every other failure of `put`.
  const put = async (key: string, body: BlobBody, opts: PutOptions = {}) =>
    putS3Object({ client, Bucket, Key: objectKey(key), partSize, queueSize }, body, opts);

  async function open(
    key: string,
    opts: { range?: { offset: number; length?: number | undefined } | undefined } = {},
  ): Promise<BlobObject> {
    const Key = objectKey(key);
    const r = opts.range;
    if (r && (!Number.isSafeInteger(r.offset) || r.offset < 0)) throw rangeNotSatisfiable(0);
    if (r?.length === 0) {
      const stat = await head(key);
      if (!stat) throw blobNotFound(key);
      if (r.offset > stat.size || (r.offset === stat.size && stat.size > 0))
        throw rangeNotSatisfiable(stat.size);
      return { ...stat, body: new Blob([]).stream(), range: { offset: r.offset, length: 0 } };
    }
    const Range = r
      ? `bytes=${r.offset}-${r.length === undefined ? '' : r.offset + r.length - 1}`
      : undefined;
    let res;
    try {
      res = await client.send(new GetObjectCommand({ Bucket, Key, Range }));
    } catch (error) {
      if (isMissing(error)) throw blobNotFound(key);
      if (httpStatus(error) === 416) {
        // An empty blob has no byte 0; reading "from 0" of it is an empty read, not an error.
        const stat = await head(key);
        if (!stat) throw blobNotFound(key);
        if (stat.size === 0 && r?.offset === 0)
          return { ...stat, body: new Blob([]).stream(), range: { offset: 0, length: 0 } };
        throw rangeNotSatisfiable(stat.size);
      }
      throw error;
    }
    const got = res.Body
      ? (res.Body.transformToWebStream() as ReadableStream<Uint8Array>)
      : new Blob([]).stream();
    const contentRange = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.ContentRange ?? '');
    let length = res.ContentLength ?? 0;
    let total = length;
    let body = got;
    if (r) {
      if (!contentRange || Number(contentRange[1]) !== r.offset) {
        await got.cancel();
        throw new SluiceError('INTERNAL', `the S3 server answered ${Range} with another range`);
      }
      total = Number(contentRange[3]);
      // Some servers (s3rver reads `bytes=0-0` as `bytes=0-`) send more than asked: cut it.
      if (r.length !== undefined && length > r.length) {
        length = r.length;
        body = takeBytes(got, length);
      }
    }
    return {
      size: total,
      contentType: res.ContentType ?? 'application/octet-stream',
      etag: res.ETag ?? '',
      body,
      range: { offset: r?.offset ?? 0, length },
    };
  }

  async function remove(key: string, IfMatch?: string): Promise<void> {
    await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key), IfMatch }));
  }

  return {
    capabilities: { atomicPublish: native, atomicDeleteIfMatch: native, presignGet: true },
    put,
    open,
    async get(key) {
      try {
        return (await open(key)).body;
      } catch (error) {
        if ((error as SluiceError).code === 'NOT_FOUND') return undefined;
        throw error;
      }
    },
    stat: head,
    async delete(key) {
      // S3 answers a delete of a missing key with success: ask first to say which it was.
      if (!(await head(key))) return false;
      await remove(key);
      return true;
    },
    async deleteIfMatch(key, etag) {
      const stat = await head(key);
      if (!stat) return 'missing';
      if (stat.etag !== etag) return 'not_owner';
      try {
        await remove(key, native ? etag : undefined);
      } catch (error) {
        if (isMissing(error)) return 'missing';
        if (isPreconditionFailed(error)) return 'not_owner';
        throw error;
      }
      return 'deleted';
    },
    async publish(from, to) {
      const source = await head(from);
      if (!source) throw blobNotFound(from);
      if (!native && (await head(to))) return 'exists';
      try {
        await client.send(
          new CopyObjectCommand({
            Bucket,
            Key: objectKey(to),
            CopySource: `${Bucket}/${encodeURIComponent(objectKey(from)).replace(/%2F/g, '/')}`,
            CopySourceIfMatch: source.etag,
            ...(native ? { IfNoneMatch: '*' } : {}),
          }),
        );
      } catch (error) {
        if (native && isPreconditionFailed(error) && (await head(to))) return 'exists';
        if (isMissing(error) || isPreconditionFailed(error)) throw blobNotFound(from);
        throw error;
      }
      await remove(from).catch(() => {});
      return 'published';
    },
    async *list(prefix) {
      const full = base ? `${base}/${prefix}` : prefix;
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: full, ContinuationToken }),
        );
        for (const o of page.Contents ?? []) {
          if (o.Key) yield base ? o.Key.slice(base.length + 1) : o.Key;
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    async presignGet(key, opts) {
      const expiresIn = Math.floor(opts.expiresInSeconds);
      if (!(expiresIn >= 1 && expiresIn <= 7 * 24 * 3600))
        throw new SluiceError('BAD_REQUEST', 'expiresInSeconds must be 1 … 604800');
      const command = new GetObjectCommand({
        Bucket,
        Key: objectKey(key),
        ResponseContentDisposition: opts.contentDisposition,
        ResponseContentType: opts.contentType,
      });
      return getSignedUrl(client, command, { expiresIn });
    },
    async close() {
      if (ownsClient) client.destroy();
    },
  };
}
