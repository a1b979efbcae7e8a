// API-key authentication on Node: the dev key and stored keys checked with node:crypto, behind
// the TTL cache of key-cache.ts.
//
//   const auth = createApiKeyAuth(database.db, { devKey: process.env.SLUICE_API_KEY });
//   const principal = await auth.verify(bearerToken(request.headers.get('authorization')));

import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_SCOPES } from '@sluice/contracts';
import { verifyApiKey, type Db } from '@sluice/storage';
import {
  createKeyAuth,
  DEV_TENANT,
  type ApiKeyAuth,
  type AuthOptions,
  type Principal,
} from './key-cache.js';

export * from './key-cache.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function createApiKeyAuth(db: Db, options: AuthOptions = {}): ApiKeyAuth {
  const devDigest = options.devKey ? digest(options.devKey) : undefined;
  async function lookup(key: string): Promise<Principal | undefined> {
    // Constant-time comparison of equal-length digests (CWE-208).
    if (devDigest && timingSafeEqual(digest(key), devDigest)) {
      return {
        tenantId: DEV_TENANT,
        keyId: 'dev',
        scopes: API_KEY_SCOPES,
        expiresAt: null,
        source: 'dev',
      };
    }
    const found = await verifyApiKey(db, key);
    if (!found) return undefined;
    return {
      tenantId: found.tenantId,
      keyId: found.keyId,
      scopes: found.scopes,
      expiresAt: found.expiresAt === null ? null : Date.parse(found.expiresAt),
      source: 'stored',
    };
  }

  return createKeyAuth(lookup, options);
}
