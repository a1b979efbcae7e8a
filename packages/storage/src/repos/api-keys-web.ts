// API keys with WebCrypto (workerd, browsers, Node ≥ 20): the same `sk_<id>_<secret>` keys and
// the same stored sha256 as api-keys.ts, so a key made by `sluice keys create` verifies on a
// Workers gateway and one made here verifies on Node (api-keys-web.test.ts checks both ways).

import {
  isTenantId,
  LEGACY_KEY_SCOPES,
  randomToken,
  SluiceError,
  type ApiKeyScope,
} from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoNow } from '../json.js';
import { apiKeyCandidate, scopesToStore, type VerifiedApiKey } from './api-key-rows.js';

const encoder = new TextEncoder();

async function sha256(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Compares equal-length byte strings without an early exit (CWE-208). */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/** sha256 of a whole key, hex: what `api_keys.secret_hash` stores. */
export async function hashApiKeyWeb(key: string): Promise<string> {
  return hex(await sha256(key));
}

/** `verifyApiKey` with WebCrypto: the tenant, scopes and expiry of a live key, or `undefined`. */
export async function verifyApiKeyWeb(
  db: Db,
  key: string,
  now: number = Date.now(),
): Promise<VerifiedApiKey | undefined> {
  const found = await apiKeyCandidate(db, key, now);
  if (!found) return undefined;
  const actual = await hashApiKeyWeb(key);
  return constantTimeEqual(encoder.encode(found.secretHash), encoder.encode(actual))
    ? found.verified
    : undefined;
}

/** `createApiKey` with WebCrypto (a Worker's admin route, a seed script). */
export async function createApiKeyWeb(
  db: Db,
  tenantId: string,
  options: { label?: string; scopes?: readonly ApiKeyScope[]; expiresAt?: Date } = {},
): Promise<{ id: string; tenantId: string; key: string }> {
  if (!isTenantId(tenantId))
    throw new SluiceError('BAD_REQUEST', `invalid tenant id "${tenantId}"`);
  const scopes = scopesToStore(options.scopes ?? LEGACY_KEY_SCOPES);
  const id = `k${randomToken().slice(0, 12)}`;
  const key = `sk_${id}_${randomToken()}${randomToken().slice(0, 6)}`;
  await db
    .insertInto('api_keys')
    .values({
      id,
      tenant_id: tenantId,
      secret_hash: await hashApiKeyWeb(key),
      label: options.label ?? null,
      created_at: isoNow(),
      last_used_at: null,
      revoked_at: null,
      scopes,
      expires_at: options.expiresAt ? options.expiresAt.toISOString() : null,
    })
    .execute();
  return { id, tenantId, key };
}
