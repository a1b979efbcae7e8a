// API-key authentication behind a small TTL cache. The cache keeps `verifyApiKey` off the hot
// path; its TTL bounds how long a revoked key keeps working (default 2 s, at most 5 s). Unknown,
// malformed and revoked keys all resolve to `undefined`, so callers answer them identically.
//
//   const auth = createApiKeyAuth(database.db, { devKey: process.env.SLUICE_API_KEY });
//   const principal = await auth.verify(bearerToken(request.headers.get('authorization')));

import { createHash, timingSafeEqual } from 'node:crypto';
import { verifyApiKey, type Db } from '@sluice/storage';

export interface Principal {
  readonly tenantId: string;
  readonly keyId: string;
}

export interface AuthOptions {
  /** `SLUICE_API_KEY`: accepted as the key of tenant `dev` (local development). */
  devKey?: string | undefined;
  /** How long a verification is reused; revocation takes effect within it. Default 2000, max 5000. */
  cacheTtlMs?: number | undefined;
  /** Cached keys at most (oldest dropped first). Default 10 000. */
  cacheSize?: number | undefined;
}

export interface ApiKeyAuth {
  verify(key: string | null | undefined): Promise<Principal | undefined>;
  /** Forget every cached verification (after a revocation, in tests). */
  clear(): void;
}

export const DEV_TENANT = 'dev';
const MAX_KEY_LENGTH = 200;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? (match[1] as string) : null;
}

export function createApiKeyAuth(db: Db, options: AuthOptions = {}): ApiKeyAuth {
  const ttl = Math.min(Math.max(options.cacheTtlMs ?? 2000, 0), 5000);
  const maxEntries = options.cacheSize ?? 10_000;
  const devDigest = options.devKey ? digest(options.devKey) : undefined;
  const cache = new Map<string, { principal: Principal | undefined; until: number }>();
  const inflight = new Map<string, Promise<Principal | undefined>>();

  async function lookup(key: string): Promise<Principal | undefined> {
    // Constant-time comparison of equal-length digests (CWE-208).
    if (devDigest && timingSafeEqual(digest(key), devDigest)) {
      return { tenantId: DEV_TENANT, keyId: 'dev' };
    }
    const found = await verifyApiKey(db, key);
    return found ? { tenantId: found.tenantId, keyId: found.keyId } : undefined;
  }

  function remember(key: string, principal: Principal | undefined): void {
    if (ttl === 0) return;
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(key, { principal, until: Date.now() + ttl });
  }

  return {
    async verify(key) {
      if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
        return undefined;
      }
      const hit = cache.get(key);
      if (hit) {
        if (hit.until > Date.now()) return hit.principal;
        cache.delete(key);
      }
      let pending = inflight.get(key);
      if (!pending) {
        pending = lookup(key).then(
          (principal) => {
            inflight.delete(key);
            remember(key, principal);
            return principal;
          },
          (error: unknown) => {
            inflight.delete(key);
            throw error;
          },
        );
        inflight.set(key, pending);
      }
      return pending;
    },
    clear() {
      cache.clear();
    },
  };
}
