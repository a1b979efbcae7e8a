// Every blob key is built here, from server-made ids only. A user's filename is metadata and
// never part of a key, so no filename can escape its tenant's prefix.

import { createHash } from 'node:crypto';
import { isJobId, isTenantId, SluiceError } from '@sluice/contracts';

const ID = /^[a-z0-9_]{1,64}$/;
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
// The key check itself has no Node dependency (the R2 store in workerd uses it too).
export { BLOB_KEY_PATTERN, assertBlobKey } from './blob-key-pattern.js';

function tenant(tenantId: string): string {
  if (!isTenantId(tenantId))
    throw new SluiceError('BAD_REQUEST', `invalid tenant id "${tenantId}"`);
  return tenantId;
}

function job(jobId: string): string {
  if (!isJobId(jobId)) throw new SluiceError('BAD_REQUEST', `invalid job id "${jobId}"`);
  return jobId;
}

export function uploadKey(tenantId: string, fileId: string): string {
  if (!ID.test(fileId)) throw new SluiceError('BAD_REQUEST', `invalid file id "${fileId}"`);
  return `t/${tenant(tenantId)}/uploads/${fileId}`;
}

/** Deterministic final key of an asset: the same job, unit and name always map to one key. */
export function assetKey(tenantId: string, jobId: string, unitKey: string, name: string): string {
  if (!ASSET_NAME.test(name)) throw new SluiceError('BAD_REQUEST', `invalid asset name "${name}"`);
  const unit = createHash('sha256').update(unitKey).digest('hex').slice(0, 32);
  return `t/${tenant(tenantId)}/j/${job(jobId)}/assets/${unit}/${name}`;
}

export { stagingKey, stagingPrefix } from './staging-key.js';
