// `GET /v1/audit.jsonl?action=…&keyId=…&target=…&after=…&before=…`: the tenant's audit log as
// JSON lines, newest first, streamed page by page (1,000 rows a read) so an export of any size
// holds one page in memory. Scope `jobs:manage`, admitted like every other route; a bad filter
// is a 400 naming the field, before anything is read.

import { AUDIT_EXPORT_PATH, AuditListInput } from '@sluice/contracts';
import { listAudit, type SluiceDatabase } from '@sluice/storage/portable';
import type { Hono } from 'hono';
import { admitHttp } from '../auth/admit-http.js';
import type { Gatekeeper } from '../auth/gatekeeper.js';
import { toAuditEntry, toAuditFilter } from './audit-views.js';

const PAGE = 1000;

export function registerAuditExport(
  app: Hono,
  deps: { database: SluiceDatabase; gate: Gatekeeper; onReject?: (code: string) => void },
): void {
  app.get(AUDIT_EXPORT_PATH, async (c) => {
    const principal = await admitHttp(deps.gate, c, 'jobs:manage', deps.onReject);
    if (principal instanceof Response) return principal;
    const parsed = AuditListInput.omit({ cursor: true, limit: true }).safeParse(c.req.query());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || '(query)';
      return Response.json(
        { error: { code: 'BAD_REQUEST', message: `${field}: ${issue?.message ?? 'invalid'}` } },
        { status: 400 },
      );
    }
    const filter = toAuditFilter(principal.tenantId, parsed.data);
    const encoder = new TextEncoder();
    let cursor: string | null = null;
    let done = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (done) return controller.close();
        const page = await listAudit(deps.database.db, filter, { cursor, limit: PAGE });
        const text = page.items.map((r) => `${JSON.stringify(toAuditEntry(r))}\n`).join('');
        if (text) controller.enqueue(encoder.encode(text));
        cursor = page.nextCursor;
        done = cursor === null;
        if (done) controller.close();
      },
    });
    return new Response(body, {
      headers: {
        'content-type': 'application/x-ndjson; charset=utf-8',
        'content-disposition': 'attachment; filename="audit.jsonl"',
      },
    });
  });
}
