// The accept path's hashing and randomness and the API-key check with WebCrypto: the same
// fingerprint (sha256 of canonical JSON) and the same stored key digests as the Node gateway, so
// one database serves both (web-crypto.test.ts compares them).

import { API_KEY_SCOPES } from '@sluice/contracts';
import { constantTimeEqual, verifyApiKeyWeb, type Db } from '@sluice/storage/portable';
import type { AcceptCrypto } from '../accept/accept.js';
import { canonicalJson } from '../accept/canonical-json.js';
import { DEV_TENANT, type KeyLookup } from '../auth/key-cache.js';

const encoder = new TextEncoder();

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

export const WEB_ACCEPT_CRYPTO: AcceptCrypto = {
  inputHash: (input, fileIds) => sha256Hex(canonicalJson({ input: input ?? null, fileIds })),
  randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
};

/** Stored keys (and the dev key, when given) checked with WebCrypto. */
export function webKeyLookup(db: Db, devKey?: string): KeyLookup {
  const devDigest = devKey ? sha256Hex(devKey) : undefined;
  return async (key) => {
    if (devDigest) {
      const [given, expected] = await Promise.all([sha256Hex(key), devDigest]);
      if (constantTimeEqual(encoder.encode(given), encoder.encode(expected))) {
        return {
          tenantId: DEV_TENANT,
          keyId: 'dev',
          scopes: API_KEY_SCOPES,
          expiresAt: null,
          source: 'dev',
        };
      }
    }
    const found = await verifyApiKeyWeb(db, key);
    if (!found) return undefined;
    return {
      tenantId: found.tenantId,
      keyId: found.keyId,
      scopes: found.scopes,
      expiresAt: found.expiresAt === null ? null : Date.parse(found.expiresAt),
      source: 'stored',
    };
  };
}
