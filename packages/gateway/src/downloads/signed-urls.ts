// Short-lived download links for stores that cannot presign (the local folder): the gateway
// signs `path + tenant + expiry` with HMAC-SHA256 and later accepts that token instead of an API
// key, for that path only and until it expires. The tenant travels in the token, and the file or
// asset is still looked up in that tenant, so a token never reaches another tenant's bytes.
// Gateways behind one load balancer must share `signingSecret`.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface UrlSigner {
  /** `?token=…` for `path`, valid for `expiresInSeconds`. */
  sign(
    path: string,
    tenantId: string,
    expiresInSeconds: number,
  ): { token: string; expiresAt: Date };
  /** The tenant the token was issued to, or undefined (forged, for another path, or expired). */
  verify(path: string, token: string): string | undefined;
}

const TOKEN = /^v1\.([a-z0-9_]{1,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export function createUrlSigner(
  secret: string | Uint8Array | undefined,
  now: () => number = Date.now,
): UrlSigner {
  const key = secret === undefined ? randomBytes(32) : Buffer.from(secret);
  if (key.byteLength < 32) throw new Error('downloads.signingSecret must be at least 32 bytes');
  const mac = (path: string, tenantId: string, expires: string) =>
    createHmac('sha256', key).update(`GET\n${path}\n${tenantId}\n${expires}`).digest();
  return {
    sign(path, tenantId, expiresInSeconds) {
      const expires = Math.floor(now() / 1000) + expiresInSeconds;
      const sig = mac(path, tenantId, String(expires)).toString('base64url');
      return { token: `v1.${tenantId}.${expires}.${sig}`, expiresAt: new Date(expires * 1000) };
    },
    verify(path, token) {
      const m = TOKEN.exec(token);
      if (!m) return undefined;
      const [, tenantId, expires, sig] = m as unknown as [string, string, string, string];
      const expected = mac(path, tenantId, expires);
      const given = Buffer.from(sig, 'base64url');
      // Base64 has spare bits in its last character: accept only the one canonical spelling.
      if (given.toString('base64url') !== sig) return undefined;
      if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected))
        return undefined;
      if (Number(expires) * 1000 <= now()) return undefined;
      return tenantId;
    },
  };
}
