// The idempotency fingerprint of a submit on Node: sha256 of its input and files as canonical
// JSON (canonical-json.ts), and pooled random bytes for job ids. The Workers gateway has the
// WebCrypto twins (cloudflare/web-crypto.ts); accept.ts takes either as `AcceptCrypto`.

import { createHash, randomFillSync } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

export { canonicalJson };

export function inputHash(input: unknown, fileIds: readonly string[]): string {
  return createHash('sha256')
    .update(canonicalJson({ input: input ?? null, fileIds }))
    .digest('hex');
}

const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let offset = 0;

/**
 * Random bytes for job ids from a pool refilled by the CSPRNG 4 KiB at a time: one system call
 * per ~240 ids instead of one each. Every byte is handed out once.
 */
export function pooledRandomBytes(length: number): Uint8Array {
  if (length > POOL_BYTES) return randomFillSync(new Uint8Array(length));
  if (offset + length > pool.length) {
    pool = randomFillSync(new Uint8Array(POOL_BYTES));
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + length);
  offset += length;
  return bytes;
}

/** What the accept path hashes and draws ids with, on Node. */
export const NODE_ACCEPT_CRYPTO = { inputHash, randomBytes: pooledRandomBytes };
