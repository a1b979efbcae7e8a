// Downloads: `GET /v1/files/:id` and `GET /v1/jobs/:id/assets/:name`, whole or one byte range.
// The body stays a web stream (nothing is buffered unless you call `text()`/`arrayBuffer()`),
// in Node and browsers alike. Short-lived links come from the gateway (presigned store URLs, or
// gateway paths with a signed token, made absolute here).

import {
  API_PATHS,
  FILES_PATH,
  JOBS_PATH,
  type SignedUrl as SignedUrlWire,
} from '@sluice/contracts/wire';
import { abortReason } from './backoff.js';
import { mutate } from './rpc.js';
import { responseError, toApiError } from './to-api-error.js';
import type { Transport } from './transport.js';

/** Bytes `offset` … `offset + length - 1`; to the end without `length`. */
export interface ByteRange {
  offset: number;
  length?: number | undefined;
}

export interface DownloadOptions {
  range?: ByteRange | undefined;
  signal?: AbortSignal | undefined;
}

export interface AssetRef {
  /** The unit that wrote the asset; omit for the job's own (finalize) assets. */
  unit?: string | null | undefined;
}

/** A response-like download: stream `body`, or read it all with `text()`/`arrayBuffer()`. */
export interface Download {
  /** 200 for the whole content, 206 for a range. */
  readonly status: number;
  readonly body: ReadableStream<Uint8Array>;
  /** Bytes of the whole content (not only the range). */
  readonly size: number;
  /** The bytes `body` carries. */
  readonly range: { offset: number; length: number };
  readonly contentType: string;
  /** The content's sha256 in quotes: the same for every range and every gateway. */
  readonly etag: string;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  blob(): Promise<Blob>;
}

export interface SignedUrl {
  /** Absolute; fetch it without credentials until `expiresAt`. */
  url: string;
  expiresAt: Date;
}

function rangeHeader(range: ByteRange): string {
  const { offset, length } = range;
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError('range.offset must be a non-negative integer');
  if (length === undefined) return `bytes=${offset}-`;
  if (!Number.isSafeInteger(length) || length < 1)
    throw new RangeError('range.length must be a positive integer');
  return `bytes=${offset}-${offset + length - 1}`;
}

function toDownload(response: Response): Download {
  const length = Number(response.headers.get('content-length') ?? 0);
  const contentRange = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(
    response.headers.get('content-range') ?? '',
  );
  const offset = contentRange ? Number(contentRange[1]) : 0;
  const size = contentRange ? Number(contentRange[3]) : length;
  const body = response.body ?? new Blob([]).stream();
  return {
    status: response.status,
    body,
    size,
    range: { offset, length },
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    etag: response.headers.get('etag') ?? '',
    text: () => response.text(),
    arrayBuffer: () => response.arrayBuffer(),
    blob: () => response.blob(),
  };
}

async function fetchDownload(
  transport: Transport,
  path: string,
  opts: DownloadOptions,
): Promise<Download> {
  const headers: Record<string, string> = { authorization: await transport.authorization() };
  if (opts.range) headers.range = rangeHeader(opts.range);
  let response: Response;
  try {
    response = await transport.fetch(`${transport.endpoints.base}${path}`, {
      headers,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  } catch (error) {
    if (opts.signal?.aborted) throw abortReason(opts.signal);
    throw toApiError(error);
  }
  if (response.status !== 200 && response.status !== 206) throw await responseError(response);
  return toDownload(response);
}

function assetPath(jobId: string, name: string, ref: AssetRef): string {
  const base = `${JOBS_PATH}/${encodeURIComponent(jobId)}/assets/${encodeURIComponent(name)}`;
  return ref.unit == null ? base : `${base}?unit=${encodeURIComponent(ref.unit)}`;
}

export function downloadFile(
  transport: Transport,
  id: string,
  opts: DownloadOptions = {},
): Promise<Download> {
  return fetchDownload(transport, `${FILES_PATH}/${encodeURIComponent(id)}`, opts);
}

export function downloadAsset(
  transport: Transport,
  jobId: string,
  name: string,
  opts: DownloadOptions & AssetRef = {},
): Promise<Download> {
  return fetchDownload(transport, assetPath(jobId, name, opts), opts);
}

function absolute(transport: Transport, link: SignedUrlWire): SignedUrl {
  // A presigned store URL is absolute already; a gateway link is a path on the gateway.
  const url = /^https?:\/\//.test(link.url) ? link.url : `${transport.endpoints.base}${link.url}`;
  return { url, expiresAt: new Date(link.expiresAt) };
}

export async function fileSignedUrl(
  transport: Transport,
  id: string,
  opts: { expiresInSeconds?: number | undefined } = {},
): Promise<SignedUrl> {
  const input = {
    id,
    ...(opts.expiresInSeconds ? { expiresInSeconds: opts.expiresInSeconds } : {}),
  };
  return absolute(transport, await mutate<SignedUrlWire>(transport, API_PATHS.fileUrl, input));
}

export async function assetSignedUrl(
  transport: Transport,
  jobId: string,
  name: string,
  opts: AssetRef & { expiresInSeconds?: number | undefined } = {},
): Promise<SignedUrl> {
  const input = {
    id: jobId,
    name,
    ...(opts.unit != null ? { unit: opts.unit } : {}),
    ...(opts.expiresInSeconds ? { expiresInSeconds: opts.expiresInSeconds } : {}),
  };
  return absolute(transport, await mutate<SignedUrlWire>(transport, API_PATHS.assetUrl, input));
}
