// The idempotency key, synchronously with Node's crypto: the public `idempotencyKeyOf` of the Node
// entry. The guard itself uses the WebCrypto twin (`idempotencyKeyOfWeb`), equal by test.

import { createHash } from 'node:crypto';

/** Deterministic per (job, unit, call): every retry of a call sends the same key. */
export function idempotencyKeyOf(jobId: string, unitKey: string, callName: string): string {
  const digest = createHash('sha256').update(`${jobId}\u0000${unitKey}\u0000${callName}`);
  return `sluice-${digest.digest('base64url').slice(0, 32)}`;
}
