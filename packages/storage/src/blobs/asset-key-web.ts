// `assetKey` for workerd: the same deterministic key as blob-keys.ts builds, with WebCrypto's
// (async) sha256 instead of node:crypto's. asset-key-web.test.ts pins the two to each other for
// any input, valid or not, so they cannot drift apart.
import { isJobId, isTenantId, SluiceError } from '@sluice/contracts';

const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export async function assetKeyWeb(
  tenantId: string,
  jobId: string,
  unitKey: string,
  name: string,
): Promise<string> {
  if (!ASSET_NAME.test(name)) throw new SluiceError('BAD_REQUEST', `invalid asset name "${name}"`);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(unitKey));
  const unit = [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('')
    .slice(0, 32);
  if (!isTenantId(tenantId))
    throw new SluiceError('BAD_REQUEST', `invalid tenant id "${tenantId}"`);
  if (!isJobId(jobId)) throw new SluiceError('BAD_REQUEST', `invalid job id "${jobId}"`);
  return `t/${tenantId}/j/${jobId}/assets/${unit}/${name}`;
}
