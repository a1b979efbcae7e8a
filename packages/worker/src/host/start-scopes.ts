// The scopes a job's start limits count it under, and their counter keys (start-gate.ts): the
// kind (`kind:<kind>`), each tenant's jobs of the kind (`tenant:<kind>/<tenant>`), each submitting
// API key's jobs of the kind (`key:<kind>/<key>`). A key is `<reason>:<name>` of the `waiting` a
// hold by it stores, so a key read back (a lapsed slot) names its waiting list again.

import type { JobLimits, JobWaiting, StartLimit } from '@sluice/contracts';
import type { WaitingList } from '@sluice/storage/d1';
import type { AttemptJob } from '../attempt/attempt.js';

export interface Scope {
  reason: JobWaiting['reason'];
  name: string;
  key: string;
  /** The metrics label: scope and kind only (no tenant or key ids). */
  label: string;
  limit: StartLimit;
}

export function scopesOf(job: AttemptJob, limits: JobLimits): Scope[] {
  const out: Scope[] = [];
  const { kind } = job;
  if (limits.maxRunning !== undefined || limits.startsPerSecond !== undefined)
    out.push({
      reason: 'kind',
      name: kind,
      key: `kind:${kind}`,
      label: `kind:${kind}`,
      limit: limits,
    });
  if (limits.perTenant) {
    const name = `${kind}/${job.tenantId}`;
    out.push({
      reason: 'tenant',
      name,
      key: `tenant:${name}`,
      label: `tenant:${kind}`,
      limit: limits.perTenant,
    });
  }
  // A job submitted without a key (a schedule's tick, an internal caller) has no key to count.
  if (limits.perKey && job.apiKeyId) {
    const name = `${kind}/${job.apiKeyId}`;
    out.push({
      reason: 'key',
      name,
      key: `key:${name}`,
      label: `key:${kind}`,
      limit: limits.perKey,
    });
  }
  return out;
}

/** The waiting list of a slot key read back from the database; undefined: not a start limit's. */
export function listOfKey(
  key: string,
  limits: ReadonlyMap<string, JobLimits>,
): WaitingList | undefined {
  const at = key.indexOf(':');
  const reason = key.slice(0, at);
  const name = key.slice(at + 1);
  // A kind has no '/' (JOB_KIND_PATTERN): the first one ends it; the tenant or key id follows.
  const of = limits.get(reason === 'kind' ? name : name.slice(0, name.indexOf('/')));
  const scope =
    reason === 'kind'
      ? of
      : reason === 'tenant'
        ? of?.perTenant
        : reason === 'key'
          ? of?.perKey
          : undefined;
  const max = scope?.maxRunning;
  return max === undefined ? undefined : { key, reason, name, max };
}
