// The two demo tenants and their API keys. Kept in the data folder so a restart prints the same
// logins; a key that no longer verifies (a fresh database) is replaced.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ApiKeyAuth } from '@sluice/gateway';
import { createApiKey, type Db } from '@sluice/storage';

export const DEMO_TENANTS = ['acme', 'globex'] as const;
export interface Login {
  tenant: string;
  apiKey: string;
}

export async function demoLogins(db: Db, auth: ApiKeyAuth, file: string): Promise<Login[]> {
  const saved: Login[] = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Login[])
    : [];
  const out: Login[] = [];
  for (const tenant of DEMO_TENANTS) {
    const old = saved.find((l) => l.tenant === tenant);
    if (old && (await auth.verify(old.apiKey))?.tenantId === tenant) out.push(old);
    else out.push({ tenant, apiKey: (await createApiKey(db, tenant, 'demo login')).key });
  }
  writeFileSync(file, JSON.stringify(out, null, 2), { mode: 0o600 });
  return out;
}
