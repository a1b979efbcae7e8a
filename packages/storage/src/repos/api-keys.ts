// API keys: `sk_<id>_<secret>` with a 160-bit secret. Only sha256 of the whole key is stored
// (a fast hash is right for high-entropy keys; salts are for passwords); the key is shown once.
// Unknown, malformed, revoked and expired keys all verify to `undefined`, so callers answer them
// alike. A key carries scopes (what it may do) and may expire; `last_used_at` is written in
// batches by the gateway (`touchApiKeys`), never per request.

import { createHash, timingSafeEqual } from 'node:crypto';
import {
  isApiKeyScope,
  isTenantId,
  LEGACY_KEY_SCOPES,
  randomToken,
  SluiceError,
  type ApiKeyScope,
} from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoNow } from '../json.js';

const KEY_PATTERN = /^sk_(k[a-z2-7]{12})_([a-z2-7]{32})$/;

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
  /** Default: `LEGACY_KEY_SCOPES` (every scope but `admin`). */
  scopes?: readonly ApiKeyScope[] | undefined;
  /** When the key stops verifying; default never. */
  expiresAt?: Date | undefined;
}

/** A verified key: its tenant, id, scopes and expiry. */
export interface VerifiedApiKey {
  tenantId: string;
  keyId: string;
  scopes: ApiKeyScope[];
  expiresAt: string | null;
}

/** The stored scope list, unknown names dropped (a newer binary's scope grants nothing here). */
export function parseScopes(stored: string): ApiKeyScope[] {
  return stored.split(' ').filter(isApiKeyScope);
}

function scopesToStore(scopes: readonly string[]): string {
  const unknown = scopes.filter((s) => !isApiKeyScope(s));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new SluiceError('BAD_REQUEST', `invalid scopes "${scopes.join(' ')}"`);
  }
  return [...new Set(scopes)].join(' ');
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

/** The id part of a well-formed key (for throttling by key id before any lookup), or null. */
export function apiKeyIdOf(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

/** Bounded `in (…)` lists (bound parameters are limited per statement). */
function chunks(ids: readonly string[], size = 90): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size));
  return out;
}

function expired(expiresAt: string | null, now: number): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= now;
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
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  const id = match[1] as string;
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || row.revoked_at !== null || expired(row.expires_at, now)) return undefined;
  const expected = Buffer.from(row.secret_hash, 'hex');
  const actual = Buffer.from(hashApiKey(key), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  return {
    tenantId: row.tenant_id,
    keyId: row.id,
    scopes: parseScopes(row.scopes),
    expiresAt: row.expires_at,
  };
}

/**
 * Of `ids`, the keys that are still live (exist, unrevoked, unexpired): one query for every open
 * stream's key, so revocation reaches streams without a per-stream lookup.
 */
export async function liveApiKeyIds(
  db: Db,
  ids: readonly string[],
  now: number = Date.now(),
): Promise<Set<string>> {
  const live = new Set<string>();
  for (const chunk of chunks(ids)) {
    const rows = await db
      .selectFrom('api_keys')
      .select(['id', 'revoked_at', 'expires_at'])
      .where('id', 'in', chunk)
      .execute();
    for (const r of rows) if (r.revoked_at === null && !expired(r.expires_at, now)) live.add(r.id);
  }
  return live;
}

/** Records that `ids` were used at `at`: one statement for a whole batch of keys. */
export async function touchApiKeys(
  db: Db,
  ids: readonly string[],
  at: string = isoNow(),
): Promise<void> {
  for (const chunk of chunks(ids)) {
    await db.updateTable('api_keys').set({ last_used_at: at }).where('id', 'in', chunk).execute();
  }
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
