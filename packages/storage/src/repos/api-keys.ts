// API keys: `sk_<id>_<secret>` with a 160-bit secret. Only sha256 of the whole key is stored
// (a fast hash is right for high-entropy keys; salts are for passwords); the key is shown once.
// Unknown, malformed and revoked keys all verify to `undefined`, so callers answer them alike.

import { createHash, timingSafeEqual } from 'node:crypto';
import { isTenantId, randomToken, SluiceError } from '@sluice/contracts';
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
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export async function createApiKey(
  db: Db,
  tenantId: string,
  label?: string,
): Promise<CreatedApiKey> {
  if (!isTenantId(tenantId))
    throw new SluiceError('BAD_REQUEST', `invalid tenant id "${tenantId}"`);
  const id = `k${randomToken().slice(0, 12)}`;
  const key = `sk_${id}_${randomToken()}${randomToken().slice(0, 6)}`;
  await db
    .insertInto('api_keys')
    .values({
      id,
      tenant_id: tenantId,
      secret_hash: hashApiKey(key),
      label: label ?? null,
      created_at: isoNow(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return { id, tenantId, key };
}

/** The tenant of a valid, unrevoked key, or `undefined`. Constant-time digest comparison. */
export async function verifyApiKey(
  db: Db,
  key: string,
): Promise<{ tenantId: string; keyId: string } | undefined> {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  const id = match[1] as string;
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || row.revoked_at !== null) return undefined;
  const expected = Buffer.from(row.secret_hash, 'hex');
  const actual = Buffer.from(hashApiKey(key), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  return { tenantId: row.tenant_id, keyId: row.id };
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
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  }));
}
