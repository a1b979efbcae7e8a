// Which tenants an operator call may reach, and the search input as storage's filter. Only an
// `admin` key may name a tenant (`*`: every tenant); any other key that names one is refused,
// never quietly narrowed to its own, so a script that thinks it reads everything learns it does
// not.

import { SluiceError, type ApiKeyScope, type JobFilter } from '@sluice/contracts';
import type { JobSearch } from '@sluice/storage/portable';

export interface Caller {
  tenantId: string;
  scopes: readonly ApiKeyScope[];
}

/** The tenant a call reads (null: every tenant). */
export function tenantScope(caller: Caller, tenant: string | undefined): string | null {
  if (tenant === undefined || tenant === caller.tenantId) return caller.tenantId;
  if (!caller.scopes.includes('admin')) {
    throw new SluiceError('FORBIDDEN', 'tenant: only an admin key may name a tenant', {
      details: { field: 'tenant' },
    });
  }
  return tenant === '*' ? null : tenant;
}

/** An ISO time with any offset, as the stored UTC text (`…Z` with milliseconds). */
const utc = (iso: string | undefined) =>
  iso === undefined ? undefined : new Date(iso).toISOString();

export function toJobSearch(caller: Caller, f: JobFilter): JobSearch {
  return {
    tenantId: tenantScope(caller, f.tenant),
    kind: f.kind,
    version: f.version,
    states: f.states,
    tags: f.tags,
    metadata: f.metadata,
    createdAfter: utc(f.createdAfter),
    createdBefore: utc(f.createdBefore),
    finishedAfter: utc(f.finishedAfter),
    finishedBefore: utc(f.finishedBefore),
    errorText: f.errorText,
  };
}
