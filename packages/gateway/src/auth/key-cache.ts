// API-key authentication behind a small TTL cache, whatever verifies the key (node:crypto in
// api-key-auth.ts, WebCrypto in cloudflare/web-api-key-auth.ts). The cache keeps the lookup off
// the hot path; its TTL bounds how long a revoked key keeps working on new requests (default 2 s, at most
// 5 s; open streams are re-checked by the gatekeeper's stream watch instead). Unknown, malformed,
// revoked and expired keys all resolve to `undefined`, so callers answer them identically. A
// cached verification past the key's expiry counts as expired at once.

import type { ApiKeyScope } from '@sluice/contracts';

export interface Principal {
  readonly tenantId: string;
  readonly keyId: string;
  readonly scopes: readonly ApiKeyScope[];
  /** Epoch ms after which the key no longer works; null: never. */
  readonly expiresAt: number | null;
  /** A stored key (re-checked, `last_used_at` written) or the process's dev key. */
  readonly source: 'stored' | 'dev';
}

export interface AuthOptions {
  /**
   * The dev key (`sluice dev` only): accepted as a key of tenant `dev` with every scope. The CLI
   * passes it in `sluice dev` and never in `sluice gateway`.
   */
  devKey?: string | undefined;
  /** How long a verification is reused; revocation takes effect within it. Default 2000, max 5000. */
  cacheTtlMs?: number | undefined;
  /** Cached keys at most (oldest dropped first). Default 10 000. */
  cacheSize?: number | undefined;
  /**
   * Concurrent verifications of one key share one lookup (default true). Workers turn it off: a
   * request must not await I/O that another request started (it is cancelled with that request).
   */
  shareLookups?: boolean | undefined;
}

export interface ApiKeyAuth {
  verify(key: string | null | undefined): Promise<Principal | undefined>;
  /** A still-valid cached verification of `key`, without any lookup. */
  cached(key: string | null | undefined): Principal | undefined;
  /** Forget cached verifications of one key id (it was found revoked). */
  forget(keyId: string): void;
  /** Forget every cached verification (after a revocation, in tests). */
  clear(): void;
}

export const DEV_TENANT = 'dev';
const MAX_KEY_LENGTH = 200;

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? (match[1] as string) : null;
}

export function isExpired(principal: Principal, now = Date.now()): boolean {
  return principal.expiresAt !== null && principal.expiresAt <= now;
}

/** Looks a key up (the dev key, then the database): its principal, or `undefined`. */
export type KeyLookup = (key: string) => Promise<Principal | undefined>;

export function createKeyAuth(lookup: KeyLookup, options: AuthOptions = {}): ApiKeyAuth {
  const ttl = Math.min(Math.max(options.cacheTtlMs ?? 2000, 0), 5000);
  const maxEntries = options.cacheSize ?? 10_000;
  const cache = new Map<string, { principal: Principal | undefined; until: number }>();
  const inflight = new Map<string, Promise<Principal | undefined>>();

  function remember(key: string, principal: Principal | undefined): void {
    if (ttl === 0) return;
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(key, { principal, until: Date.now() + ttl });
  }

  function cachedEntry(key: string): { principal: Principal | undefined } | undefined {
    const hit = cache.get(key);
    if (!hit) return undefined;
    const now = Date.now();
    if (hit.until <= now) {
      cache.delete(key);
      return undefined;
    }
    if (hit.principal && isExpired(hit.principal, now)) return { principal: undefined };
    return hit;
  }

  const valid = (key: unknown): key is string =>
    typeof key === 'string' && key.length > 0 && key.length <= MAX_KEY_LENGTH;

  return {
    async verify(key) {
      if (!valid(key)) return undefined;
      const hit = cachedEntry(key);
      if (hit) return hit.principal;
      if (options.shareLookups === false) {
        const principal = await lookup(key);
        remember(key, principal);
        return principal;
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
    cached(key) {
      return valid(key) ? cachedEntry(key)?.principal : undefined;
    },
    forget(keyId) {
      for (const [key, entry] of cache) if (entry.principal?.keyId === keyId) cache.delete(key);
    },
    clear() {
      cache.clear();
    },
  };
}
