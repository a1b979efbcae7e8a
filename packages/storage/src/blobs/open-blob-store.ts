// One place that turns configuration into a blob store:
//   - a folder path or `file:///abs/path` → the local folder store (the default);
//   - `s3://bucket/optional/prefix` → an S3-compatible store, configured from the environment:
//       SLUICE_S3_ENDPOINT          server URL for non-AWS servers (MinIO, R2, s3rver); unset: AWS
//       SLUICE_S3_REGION            region (else AWS_REGION, else us-east-1)
//       SLUICE_S3_FORCE_PATH_STYLE  1/0; default 1 when an endpoint is set
//       SLUICE_S3_CONDITIONAL       auto (default: probe the server once) | native | emulated
//       SLUICE_S3_PART_SIZE_MIB     multipart part size (default and minimum 5)
//       SLUICE_S3_TIMEOUT_MS        a connection must open, and a request's socket must move,
//                                   within this (default 30000; the AWS SDK waits forever)
//       AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
//                                   credentials; unset: the AWS SDK's default chain
// The AWS SDK is loaded only for `s3://` URLs, so the local default never pays for it.

import { MissingDependencyError, SluiceError } from '@sluice/contracts';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './local-blob-store.js';

export type BlobEnv = Readonly<Record<string, string | undefined>>;

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function invalid(message: string): SluiceError {
  return new SluiceError('INVALID_CONFIG', message);
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw invalid(`expected 1 or 0, got "${value}"`);
}

export async function openBlobStore(url: string, opts: { env?: BlobEnv } = {}): Promise<BlobStore> {
  if (!url.startsWith('s3://')) {
    const path = url.startsWith('file://') ? new URL(url).pathname : url;
    if (path === '') throw invalid('blob store location is empty');
    return createLocalBlobStore(path);
  }
  const env = opts.env ?? process.env;
  const parsed = new URL(url);
  const bucket = parsed.hostname;
  if (!BUCKET.test(bucket)) throw invalid(`"${bucket}" is not a valid S3 bucket name`);
  if (parsed.search || parsed.hash || parsed.username)
    throw invalid('an s3:// URL carries only a bucket and a prefix; credentials go in AWS_*');
  const prefix = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, '');
  const endpoint = env.SLUICE_S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint))
    throw invalid(`SLUICE_S3_ENDPOINT must be http(s)://…, got "${endpoint}"`);
  const mode = env.SLUICE_S3_CONDITIONAL || 'auto';
  if (mode !== 'auto' && mode !== 'native' && mode !== 'emulated')
    throw invalid(`SLUICE_S3_CONDITIONAL must be auto, native or emulated, got "${mode}"`);
  const partMiB = Number(env.SLUICE_S3_PART_SIZE_MIB || 5);
  if (!Number.isInteger(partMiB) || partMiB < 5 || partMiB > 5120)
    throw invalid('SLUICE_S3_PART_SIZE_MIB must be an integer from 5 to 5120');
  const timeoutMs = Number(env.SLUICE_S3_TIMEOUT_MS || 30_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100)
    throw invalid('SLUICE_S3_TIMEOUT_MS must be an integer of at least 100 (ms)');
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId !== !secretAccessKey)
    throw invalid('set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither');

  const s3 = await import('./s3.js').catch((error: unknown) => {
    // The AWS SDK is an optional peer: name what to install instead of a resolver stack.
    const missing = /Cannot find (?:package|module) '(@aws-sdk\/[\w-]+)'/.exec(String(error));
    if (missing?.[1])
      throw new MissingDependencyError(missing[1], 's3:// blob stores', { cause: error });
    throw error;
  });
  const client = s3.createS3Client({
    region: env.SLUICE_S3_REGION || env.AWS_REGION || 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: flag(env.SLUICE_S3_FORCE_PATH_STYLE, endpoint !== undefined),
    // Bounded: an endpoint that accepts and never answers must fail, not hang (the SDK's own
    // default for both is no timeout). The socket timeout is on inactivity, so a long upload
    // that keeps moving is not cut (the SDK's requestTimeout would cut it).
    requestHandler: { connectionTimeout: Math.min(5_000, timeoutMs), socketTimeout: timeoutMs },
    ...(accessKeyId && secretAccessKey
      ? {
          credentials: {
            accessKeyId,
            secretAccessKey,
            ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
          },
        }
      : {}),
  });
  const base = { bucket, prefix, partSize: partMiB * 1024 * 1024 };
  try {
    const conditional = mode === 'auto' ? await s3.probeS3Conditional({ ...base, client }) : mode;
    const store = s3.createS3BlobStore({ ...base, client, conditional });
    return { ...store, close: async () => client.destroy() };
  } catch (error) {
    client.destroy();
    throw unreachable(error, endpoint ?? `s3://${bucket}`);
  }
}

/** A network failure or timeout of the startup probe, as UNAVAILABLE naming the endpoint. */
function unreachable(error: unknown, where: string): unknown {
  const e = error as { name?: unknown; code?: unknown; message?: unknown };
  const network =
    e?.name === 'TimeoutError' || (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code));
  if (!network) return error;
  return new SluiceError(
    'UNAVAILABLE',
    `blob store unavailable: ${where}: ${String(e.message ?? e.code)}`,
    { cause: error },
  );
}
