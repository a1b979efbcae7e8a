// The two demo tenants and their API keys, and an operator key for acme (scope `jobs:manage`:
// requeue and rerun). Kept in the data folder so a restart prints the same logins; a key that no
// longer verifies (a fresh database) is replaced.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ApiKeyAuth } from '@sluice/gateway';
import { LEGACY_KEY_SCOPES } from '@sluice/contracts';
import { createApiKey, type Db } from '@sluice/storage';

export const DEMO_TENANTS = ['acme', 'globex'] as const;
export interface Login {
  tenant: string;
  apiKey: string;
  /** Holds `jobs:manage` as well. */
  operator?: boolean;
}

/** Tenants that get an operator login too. */
const OPERATOR_TENANTS = ['acme'];

export async function demoLogins(db: Db, auth: ApiKeyAuth, file: string): Promise<Login[]> {
  const saved: Login[] = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Login[])
    : [];
  const out: Login[] = [];
  for (const tenant of DEMO_TENANTS) {
    const old = saved.find((l) => l.tenant === tenant && !l.operator);
    if (old && (await auth.verify(old.apiKey))?.tenantId === tenant) out.push(old);
    else out.push({ tenant, apiKey: (await createApiKey(db, tenant, 'demo login')).key });
  }
  for (const tenant of OPERATOR_TENANTS) {
    const old = saved.find((l) => l.tenant === tenant && l.operator);
    if (old && (await auth.verify(old.apiKey))?.scopes.includes('jobs:manage')) {
      out.push(old);
      continue;
    }
    const created = await createApiKey(db, tenant, {
      label: 'demo operator login',
      scopes: [...LEGACY_KEY_SCOPES, 'jobs:manage'],
    });
    out.push({ tenant, apiKey: created.key, operator: true });
  }
  writeFileSync(file, JSON.stringify(out, null, 2), { mode: 0o600 });
  return out;
}
