// The API-key rows, without hashing: the key format, scopes, expiry, and the reads and writes
// that need no digest (live keys of open streams, `last_used_at`). Shared by the Node functions
// (api-keys.ts, node:crypto) and the WebCrypto ones (api-keys-web.ts) so both verify alike.

import { isApiKeyScope, SluiceError, type ApiKeyScope } from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoNow } from '../json.js';

export const API_KEY_PATTERN = /^sk_(k[a-z2-7]{12})_([a-z2-7]{32})$/;

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

export function scopesToStore(scopes: readonly string[]): string {
  const unknown = scopes.filter((s) => !isApiKeyScope(s));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new SluiceError('BAD_REQUEST', `invalid scopes "${scopes.join(' ')}"`);
  }
  return [...new Set(scopes)].join(' ');
}

/** The id part of a well-formed key (for throttling by key id before any lookup), or null. */
export function apiKeyIdOf(key: string): string | null {
  return API_KEY_PATTERN.exec(key)?.[1] ?? null;
}

/** Bounded `in (…)` lists (bound parameters are limited per statement). */
function chunks(ids: readonly string[], size = 90): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size));
  return out;
}

export function keyExpired(expiresAt: string | null, now: number): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= now;
}

/**
 * The stored row of a well-formed, unrevoked, unexpired key, with the digest it must match, or
 * `undefined`. The caller compares digests in constant time with its own crypto.
 */
export async function apiKeyCandidate(
  db: Db,
  key: string,
  now: number,
): Promise<{ secretHash: string; verified: VerifiedApiKey } | undefined> {
  const id = apiKeyIdOf(key);
  if (id === null) return undefined;
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || row.revoked_at !== null || keyExpired(row.expires_at, now)) return undefined;
  return {
    secretHash: row.secret_hash,
    verified: {
      tenantId: row.tenant_id,
      keyId: row.id,
      scopes: parseScopes(row.scopes),
      expiresAt: row.expires_at,
    },
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
    for (const r of rows)
      if (r.revoked_at === null && !keyExpired(r.expires_at, now)) live.add(r.id);
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
