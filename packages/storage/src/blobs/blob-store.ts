// The blob store seam: the local filesystem by default; S3-compatible stores (and R2) implement
// the same interface and pass the same conformance suite (testing/blob-store-suite.ts). Writes
// stream (never the whole body in memory) and compute size and sha256 on the way; a body over
// `maxBytes` is cut at the first byte over and nothing is left behind. Reads stream too, whole
// or a byte range. What differs between stores is declared in `capabilities`, never guessed from
// a name.

import { SluiceError } from '@sluice/contracts';

export type BlobBody = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

export interface PutOptions {
  maxBytes?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Stored with the blob and answered by `stat`/`open` (default `application/octet-stream`). */
  contentType?: string | undefined;
}

export interface PutResult {
  size: number;
  sha256: string;
  /** Identifies this write of the key: `deleteIfMatch` with it deletes only this version. */
  etag: string;
}

export interface BlobStat {
  size: number;
  contentType: string;
  etag: string;
}

/** Bytes `offset` … `offset + length - 1` (to the end when `length` is absent). */
export interface BlobRange {
  offset: number;
  length?: number | undefined;
}

export interface BlobObject extends BlobStat {
  body: ReadableStream<Uint8Array>;
  /** The bytes `body` carries (a range when one was asked for). */
  range: { offset: number; length: number };
}

export interface PresignOptions {
  /** Lifetime of the URL, 1 s … 7 days. */
  expiresInSeconds: number;
  /** Sent back as `Content-Disposition` by the store. */
  contentDisposition?: string | undefined;
  contentType?: string | undefined;
}

export interface BlobStoreCapabilities {
  /** `publish` is an atomic write-if-absent; otherwise check-then-write (see the store's notes). */
  readonly atomicPublish: boolean;
  /** `deleteIfMatch` compares and deletes in one step; otherwise check-then-delete. */
  readonly atomicDeleteIfMatch: boolean;
  /** `presignGet` exists: clients can fetch bytes from the store directly with a short-lived URL. */
  readonly presignGet: boolean;
}

export interface BlobStore {
  readonly capabilities: BlobStoreCapabilities;
  /** Streams `body` to `key`. Throws `PAYLOAD_TOO_LARGE` (and stores nothing) past `maxBytes`. */
  put(key: string, body: BlobBody, opts?: PutOptions): Promise<PutResult>;
  /** The whole blob, or undefined when the key is missing. */
  get(key: string): Promise<ReadableStream<Uint8Array> | undefined>;
  /**
   * The blob (or a range of it) with its metadata. Throws `NOT_FOUND` when the key is missing and
   * `RANGE_NOT_SATISFIABLE` when the range starts past the end (an empty range of an empty blob
   * is fine).
   */
  open(key: string, opts?: { range?: BlobRange | undefined }): Promise<BlobObject>;
  stat(key: string): Promise<BlobStat | undefined>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  /**
   * Deletes `key` only if it is still the version `etag` names (the one its writer's `put`
   * answered): an owner never deletes what someone else wrote there since.
   */
  deleteIfMatch(key: string, etag: string): Promise<'deleted' | 'missing' | 'not_owner'>;
  /**
   * Moves `from` to `to` only if `to` does not exist yet: 'published', or 'exists' (then `from`
   * is left in place for its owner to delete). A published key is never overwritten. Throws
   * `NOT_FOUND` when `from` is missing.
   */
  publish(from: string, to: string): Promise<'published' | 'exists'>;
  /** Keys under a prefix. */
  list(prefix: string): AsyncIterable<string>;
  /** With `capabilities.presignGet`: a URL that GETs the blob without credentials until it expires. */
  presignGet?(key: string, opts: PresignOptions): Promise<string>;
  /**
   * Stores that stage bytes in temporary files (the local store's `.tmp/`): removes those not
   * written for `olderThanMs`, the leftovers of a process killed mid-upload. A live upload writes
   * at least every idle timeout, so a stale file is never one in flight. Returns how many went.
   */
  sweepTemporary?(olderThanMs: number, now?: number): Promise<number>;
  /** Releases connections (S3 clients); a no-op for the local store. */
  close?(): Promise<void>;
}

export const DEFAULT_BLOB_CONTENT_TYPE = 'application/octet-stream';

/** The content type a put stores: printable ASCII, at most 255 characters. */
export function blobContentType(contentType: string | undefined): string {
  if (contentType === undefined) return DEFAULT_BLOB_CONTENT_TYPE;
  if (contentType.length > 255 || !/^[\x20-\x7e]+$/.test(contentType))
    throw new SluiceError('BAD_REQUEST', 'invalid blob content type');
  return contentType;
}

export function blobNotFound(key: string): SluiceError {
  return new SluiceError('NOT_FOUND', `blob "${key}" does not exist`);
}

export function rangeNotSatisfiable(size: number): SluiceError {
  return new SluiceError('RANGE_NOT_SATISFIABLE', `range outside the blob's ${size} bytes`, {
    details: { size },
  });
}

/** A range against a blob of `size` bytes, clamped to its end; undefined when unsatisfiable. */
export function resolveBlobRange(
  range: BlobRange | undefined,
  size: number,
): { offset: number; length: number } | undefined {
  if (!range) return { offset: 0, length: size };
  const { offset } = range;
  if (!Number.isSafeInteger(offset) || offset < 0) return undefined;
  if (range.length !== undefined && (!Number.isSafeInteger(range.length) || range.length < 0))
    return undefined;
  if (offset > size || (offset === size && size > 0)) return undefined;
  const length = Math.min(range.length ?? size - offset, size - offset);
  return { offset, length };
}
