// The blob store seam: the local filesystem by default; S3 or R2 adapters implement the same
// interface. Writes stream (never the whole body in memory) and compute size and sha256 on the
// way; a body over `maxBytes` is cut at the first byte over and nothing is left behind.

export type BlobBody = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

export interface PutResult {
  size: number;
  sha256: string;
}

export interface BlobStat {
  size: number;
}

export interface BlobStore {
  readonly capabilities: {
    /** `publish` is an atomic write-if-absent (rename/link); otherwise check-then-copy. */
    readonly atomicPublish: boolean;
  };
  /** Streams `body` to `key`. Throws `PAYLOAD_TOO_LARGE` (and stores nothing) past `maxBytes`. */
  put(
    key: string,
    body: BlobBody,
    opts?: { maxBytes?: number; signal?: AbortSignal },
  ): Promise<PutResult>;
  get(key: string): Promise<ReadableStream<Uint8Array> | undefined>;
  stat(key: string): Promise<BlobStat | undefined>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  /**
   * Moves `from` to `to` only if `to` does not exist yet: 'published', or 'exists' (then `from`
   * is left in place for its owner to delete). A published key is never overwritten.
   */
  publish(from: string, to: string): Promise<'published' | 'exists'>;
  /** Keys under a prefix. */
  list(prefix: string): AsyncIterable<string>;
}
