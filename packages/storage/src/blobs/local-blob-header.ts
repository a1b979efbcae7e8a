// A local blob file starts with a small header holding its metadata (content type, and a write
// id that is its etag), so a blob and its metadata are one file: the rename that finishes a put
// and the link that publishes move both at once. Files written before headers existed have none;
// they read as plain bytes of `application/octet-stream`, with an etag from inode and mtime.

import type { FileHandle } from 'node:fs/promises';
import { DEFAULT_BLOB_CONTENT_TYPE } from './blob-store.js';

const MAGIC = Buffer.from('\u0000SLUICE-BLOB v1\n', 'latin1');
const MAX_HEADER = 4096;

export interface BlobHeader {
  contentType: string;
  etag: string;
}

export function encodeHeader(h: BlobHeader): Buffer {
  const json = Buffer.from(JSON.stringify({ ct: h.contentType, id: h.etag }), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.byteLength);
  return Buffer.concat([MAGIC, length, json]);
}

/** The header and the byte offset where the body starts. */
export async function readHeader(
  file: FileHandle,
  fallback: { ino: number; mtimeMs: number; size: number },
): Promise<{ header: BlobHeader; bodyStart: number }> {
  const head = Buffer.alloc(Math.min(MAX_HEADER, fallback.size));
  const { bytesRead } = await file.read(head, 0, head.byteLength, 0);
  const bytes = head.subarray(0, bytesRead);
  if (
    bytes.byteLength >= MAGIC.byteLength + 4 &&
    bytes.subarray(0, MAGIC.byteLength).equals(MAGIC)
  ) {
    const length = bytes.readUInt32BE(MAGIC.byteLength);
    const start = MAGIC.byteLength + 4;
    if (start + length <= bytes.byteLength) {
      const parsed = JSON.parse(bytes.subarray(start, start + length).toString('utf8')) as {
        ct?: unknown;
        id?: unknown;
      };
      return {
        header: {
          contentType: typeof parsed.ct === 'string' ? parsed.ct : DEFAULT_BLOB_CONTENT_TYPE,
          etag: typeof parsed.id === 'string' ? parsed.id : legacyEtag(fallback),
        },
        bodyStart: start + length,
      };
    }
  }
  return {
    header: { contentType: DEFAULT_BLOB_CONTENT_TYPE, etag: legacyEtag(fallback) },
    bodyStart: 0,
  };
}

function legacyEtag(s: { ino: number; mtimeMs: number; size: number }): string {
  return `"${s.ino.toString(36)}-${Math.floor(s.mtimeMs).toString(36)}-${s.size.toString(36)}"`;
}
