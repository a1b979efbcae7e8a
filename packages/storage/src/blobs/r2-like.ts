// The subset of the Workers R2 binding (and of workerd's stream and digest globals) that the R2
// blob store uses, typed structurally: the package type-checks without the Workers globals.

export interface R2HttpMetadataLike {
  contentType?: string;
}

export interface R2ObjectLike {
  key: string;
  size: number;
  etag: string;
  httpMetadata?: R2HttpMetadataLike;
  customMetadata?: Record<string, string>;
}

export interface R2ObjectBodyLike extends R2ObjectLike {
  body: ReadableStream<Uint8Array>;
}

export interface R2ConditionalLike {
  etagMatches?: string;
  etagDoesNotMatch?: string;
}

export interface R2PutOptionsLike {
  onlyIf?: R2ConditionalLike;
  httpMetadata?: R2HttpMetadataLike;
  customMetadata?: Record<string, string>;
}

export type R2ValueLike =
  ReadableStream<Uint8Array> | ArrayBuffer | ArrayBufferView | string | null;

export interface R2MultipartUploadLike {
  uploadPart(partNumber: number, value: R2ValueLike): Promise<{ partNumber: number; etag: string }>;
  complete(parts: { partNumber: number; etag: string }[]): Promise<R2ObjectLike>;
  abort(): Promise<void>;
}

export interface R2BucketLike {
  head(key: string): Promise<R2ObjectLike | null>;
  /** With `onlyIf` unmet: the object without a body. */
  get(
    key: string,
    options?: { range?: { offset: number; length?: number }; onlyIf?: R2ConditionalLike },
  ): Promise<R2ObjectBodyLike | R2ObjectLike | null>;
  /** `null` when `onlyIf` is unmet (nothing written). */
  put(key: string, value: R2ValueLike, options?: R2PutOptionsLike): Promise<R2ObjectLike | null>;
  delete(keys: string | string[]): Promise<void>;
  list(options: {
    prefix?: string;
    cursor?: string;
    limit?: number;
  }): Promise<{ objects: R2ObjectLike[]; truncated: boolean; cursor?: string }>;
  createMultipartUpload(
    key: string,
    options?: { httpMetadata?: R2HttpMetadataLike },
  ): Promise<R2MultipartUploadLike>;
}

/** workerd's `FixedLengthStream`: a transform whose readable side has a known length. */
export type FixedLengthStreamClass = new (length: number) => {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
};

/** workerd's `crypto.DigestStream`: an incremental hash (WebCrypto's `digest` is one-shot). */
export type DigestStreamClass = new (algorithm: string) => WritableStream<Uint8Array> & {
  readonly digest: Promise<ArrayBuffer>;
};

/** The workerd globals the store needs, found at call time (absent under Node). */
export function workerdGlobals(): {
  FixedLengthStream: FixedLengthStreamClass;
  DigestStream: DigestStreamClass;
} {
  const g = globalThis as unknown as {
    FixedLengthStream?: FixedLengthStreamClass;
    crypto?: { DigestStream?: DigestStreamClass };
  };
  if (!g.FixedLengthStream || !g.crypto?.DigestStream)
    throw new Error('the R2 blob store runs inside workerd (FixedLengthStream, DigestStream)');
  return { FixedLengthStream: g.FixedLengthStream, DigestStream: g.crypto.DigestStream };
}
