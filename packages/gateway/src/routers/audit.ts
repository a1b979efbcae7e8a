// `audit.list` (scope `jobs:manage`): the tenant's audit log, newest first, filtered by action,
// key, target and time, in cursor pages. The JSON-lines export is a plain HTTP route beside it
// (operator/audit-export.ts). Nothing here writes: the log is appended by the actions themselves.

import { AuditListInput, AuditListResult } from '@sluice/contracts';
import { listAudit } from '@sluice/storage/portable';
import { toAuditEntry, toAuditFilter } from '../operator/audit-views.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

export function createAuditRouter(p: Procedures, deps: RouterDeps) {
  return p.router({
    list: p
      .scoped('jobs:manage')
      .input(AuditListInput)
      .output(AuditListResult)
      .query(async ({ ctx, input }) => {
        const page = await listAudit(deps.database.db, toAuditFilter(ctx.tenantId, input), input);
        return { items: page.items.map(toAuditEntry), nextCursor: page.nextCursor };
      }),
  });
}
