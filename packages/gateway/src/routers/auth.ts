// `auth.whoami` (scope `jobs:read`, which every key an operator UI can use holds): the calling
// key's id, label, tenant, scopes and expiry, so a UI offers only the actions the key may take.
// It only describes: every other procedure still checks its own scope.

import { WhoAmI, WhoAmIInput } from '@sluice/contracts';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

export function createAuthRouter(p: Procedures, deps: RouterDeps) {
  const db = deps.database.db;
  return p.router({
    whoami: p
      .scoped('jobs:read')
      .input(WhoAmIInput)
      .output(WhoAmI)
      .query(async ({ ctx }) => {
        const keyId = ctx.keyId ?? 'dev';
        // The development key has no row: no label, no expiry.
        const row = await db
          .selectFrom('api_keys')
          .select(['label', 'expires_at'])
          .where('id', '=', keyId)
          .where('tenant_id', '=', ctx.tenantId)
          .executeTakeFirst();
        return {
          keyId,
          label: row?.label ?? null,
          tenantId: ctx.tenantId,
          scopes: [...ctx.scopes],
          expiresAt: row?.expires_at ?? null,
        };
      }),
  });
}
