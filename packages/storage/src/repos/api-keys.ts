// API keys: `sk_<id>_<secret>` with a 160-bit secret. Only sha256 of the whole key is stored
// (a fast hash is right for high-entropy keys; salts are for passwords); the key is shown once.
// Unknown, malformed, revoked and expired keys all verify to `undefined`, so callers answer them
// alike. A key carries scopes (what it may do) and may expire; `last_used_at` is written in
// batches by the gateway (`touchApiKeys`), never per request.

import { createHash, timingSafeEqual } from 'node:crypto';
import {
  isTenantId,
  LEGACY_KEY_SCOPES,
  randomToken,
  SluiceError,
  type ApiKeyScope,
} from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoNow } from '../json.js';
import {
  apiKeyCandidate,
  parseScopes,
  scopesToStore,
  type VerifiedApiKey,
} from './api-key-rows.js';

export * from './api-key-rows.js';

export interface CreatedApiKey {
  id: string;
  tenantId: string;
  /** The plaintext key. Not stored; show it once. */
  key: string;
}

export interface ApiKeyInfo {
  id: string;
  tenantId: string;
  label: string | null;
  scopes: ApiKeyScope[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreateApiKeyOptions {
  label?: string | undefined;
  /** Default: `LEGACY_KEY_SCOPES` (the four job scopes: not `metrics:read`, `jobs:manage` or `admin`). */
  scopes?: readonly ApiKeyScope[] | undefined;
  /** When the key stops verifying; default never. */
  expiresAt?: Date | undefined;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export async function createApiKey(
  db: Db,
  tenantId: string,
  labelOrOptions?: string | CreateApiKeyOptions,
): Promise<CreatedApiKey> {
  if (!isTenantId(tenantId))
    throw new SluiceError('BAD_REQUEST', `invalid tenant id "${tenantId}"`);
  const options: CreateApiKeyOptions =
    typeof labelOrOptions === 'string' ? { label: labelOrOptions } : (labelOrOptions ?? {});
  const scopes = scopesToStore(options.scopes ?? LEGACY_KEY_SCOPES);
  const expiresAt = options.expiresAt;
  if (expiresAt !== undefined && Number.isNaN(expiresAt.getTime())) {
    throw new SluiceError('BAD_REQUEST', 'invalid expiry');
  }
  const id = `k${randomToken().slice(0, 12)}`;
  const key = `sk_${id}_${randomToken()}${randomToken().slice(0, 6)}`;
  await db
    .insertInto('api_keys')
    .values({
      id,
      tenant_id: tenantId,
      secret_hash: hashApiKey(key),
      label: options.label ?? null,
      created_at: isoNow(),
      last_used_at: null,
      revoked_at: null,
      scopes,
      expires_at: expiresAt ? expiresAt.toISOString() : null,
    })
    .execute();
  return { id, tenantId, key };
}

/**
 * The tenant, scopes and expiry of a valid, unrevoked, unexpired key, or `undefined`.
 * Constant-time digest comparison.
 */
export async function verifyApiKey(
  db: Db,
  key: string,
  now: number = Date.now(),
): Promise<VerifiedApiKey | undefined> {
  const found = await apiKeyCandidate(db, key, now);
  if (!found) return undefined;
  const expected = Buffer.from(found.secretHash, 'hex');
  const actual = Buffer.from(hashApiKey(key), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  return found.verified;
}

export async function revokeApiKey(db: Db, id: string): Promise<boolean> {
  const r = await db
    .updateTable('api_keys')
    .set({ revoked_at: isoNow() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

export async function listApiKeys(db: Db, tenantId?: string): Promise<ApiKeyInfo[]> {
  let q = db.selectFrom('api_keys').selectAll().orderBy('created_at');
  if (tenantId) q = q.where('tenant_id', '=', tenantId);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    label: r.label,
    scopes: parseScopes(r.scopes),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  }));
}
