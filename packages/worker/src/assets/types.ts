// `ctx.assets`: the job's write and read access to stored files (renders, large results). A
// write follows the asset protocol (asset-writer.ts: blob before row, row checked before publish): the final key is
// deterministic from tenant, job, unit and name, so a retry finds what an earlier attempt
// published and reuses it instead of writing again.

import type { BlobBody } from '@sluice/storage';

/** A stream (preferred: never the whole file in memory) or, for small assets, bytes or text. */
export type AssetBody = BlobBody | Uint8Array | string;

export interface AssetWrite {
  /** Unique within the unit (or finalize): letters, digits, `.`, `_`, `-`; at most 100. */
  name: string;
  body: AssetBody;
  /** Default `application/octet-stream`. */
  contentType?: string | undefined;
}

export interface WrittenAsset {
  /** The asset's blob key: store it in the unit's result, read it with `ctx.assets.open`. */
  key: string;
  size: number;
  sha256: string;
  /** True when an earlier attempt had published it: the body was not read. */
  reused: boolean;
}

export interface AssetClient {
  /** Writes an asset of this unit (or of finalize). Allowed in `execute` and `finalize`. */
  write(asset: AssetWrite): Promise<WrittenAsset>;
  /** Streams a published asset of this job's tenant. */
  open(key: string): Promise<ReadableStream<Uint8Array>>;
}
