// Job ids carry their version as a prefix (`v1-…`), so routing is decided by the id itself and
// never by a lookup that could disagree later. Ids are valid run ids on platforms that key a run
// by its job id (`RUN_ID_PATTERN`) and unguessable: 26 base32 characters are 130 random bits.

import { SluiceError } from './errors.js';

export const VERSION_PATTERN = /^v[1-9][0-9]{0,3}$/;
export const JOB_ID_PATTERN = /^(v[1-9][0-9]{0,3})-([a-z2-7]{26})$/;
/**
 * The run id alphabet every job id must satisfy. A platform that pushes jobs may use the job id
 * as its own run's id (Cloudflare Workflows names each instance by it), and such platforms
 * restrict the alphabet; keeping every id inside it means a job never needs a second id, a
 * mapping table, or a lookup that could disagree with the id's version prefix.
 */
export const RUN_ID_PATTERN = /^[a-zA-Z0-9_][a-zA-Z0-9-_]*$/;
export const MAX_JOB_ID_LENGTH = 64;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const RANDOM_CHARS = 26;

export type RandomBytes = (length: number) => Uint8Array;

/**
 * Random bytes cut from a pooled block (refilled by the CSPRNG every 4 KiB), as Node's own
 * `randomUUID` does: one `getRandomValues` per token showed in the claim's profile (one token
 * per claimed job). The slice is read at once by `randomToken` and never handed out again.
 */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolAt = 0;
const defaultRandomBytes: RandomBytes = (length) => {
  if (length > POOL_BYTES) return globalThis.crypto.getRandomValues(new Uint8Array(length));
  if (poolAt + length > pool.length) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    poolAt = 0;
  }
  const out = pool.subarray(poolAt, poolAt + length);
  poolAt += length;
  return out;
};

export function isVersion(value: unknown): value is string {
  return typeof value === 'string' && VERSION_PATTERN.test(value);
}

/** 26 base32 characters from 17 random bytes (130 of the 136 bits are used). */
export function randomToken(randomBytes: RandomBytes = defaultRandomBytes): string {
  const bytes = randomBytes(17);
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < RANDOM_CHARS) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

export function formatJobId(version: string, randomBytes?: RandomBytes): string {
  if (!isVersion(version)) {
    throw new SluiceError('BAD_REQUEST', `invalid version "${version}" (expected v1, v2, …)`);
  }
  return `${version}-${randomToken(randomBytes)}`;
}

export type ParsedJobId = { version: string; token: string };

/** The version and random token of a job id, or `undefined` when it is not one of ours. */
export function parseJobId(id: string): ParsedJobId | undefined {
  if (id.length > MAX_JOB_ID_LENGTH) return undefined;
  const match = JOB_ID_PATTERN.exec(id);
  if (!match) return undefined;
  return { version: match[1] as string, token: match[2] as string };
}

export function isJobId(value: unknown): value is string {
  return typeof value === 'string' && parseJobId(value) !== undefined;
}
