// Staging keys (one attempt's own blobs) without Node: the asset protocol builds them inside
// workerd too. blob-keys.ts re-exports them for the Node entry.
import { isJobId, isTenantId, SluiceError } from '@sluice/contracts';

const ID = /^[a-z0-9_]{1,64}$/;

function tenant(tenantId: string): string {
  if (!isTenantId(tenantId))
    throw new SluiceError('BAD_REQUEST', `invalid tenant id "${tenantId}"`);
  return tenantId;
}

function job(jobId: string): string {
  if (!isJobId(jobId)) throw new SluiceError('BAD_REQUEST', `invalid job id "${jobId}"`);
  return jobId;
}

/** A staging key owned by one attempt: only that attempt (or the sweeper, once it is dead) deletes it. */
export function stagingKey(
  tenantId: string,
  jobId: string,
  attemptId: string,
  token: string,
): string {
  if (!ID.test(attemptId) || !ID.test(token))
    throw new SluiceError('BAD_REQUEST', 'invalid attempt id or token');
  return `staging/t/${tenant(tenantId)}/j/${job(jobId)}/${attemptId}/${token}`;
}

export function stagingPrefix(tenantId: string, jobId: string, attemptId?: string): string {
  return `staging/t/${tenant(tenantId)}/j/${job(jobId)}/${attemptId ?? ''}`;
}
