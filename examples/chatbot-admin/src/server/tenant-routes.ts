// The example's own API next to the gateway's, each behind the tenant's API key: the metrics
// panel's figures (this tenant's only), the chat box's answers (from this tenant's generated
// intents) and the fake provider's fault knobs (a demo control, so the UI can show the
// retry-safety contracts).
import { admitHttp, type Gatekeeper } from '@sluice/gateway';
import { hasScope, type ApiKeyScope } from '@sluice/contracts';
import { listJobs, type Db } from '@sluice/storage';
import type { Context, Hono } from 'hono';
import { sql } from 'kysely';
import { z } from 'zod';
import { answerQuestion } from './chat.js';
import type { Intent } from '../jobs.js';

export interface TenantRouteDeps {
  db: Db;
  /** The gateway's admission: key, scope, rate and in-flight limits, as for its own routes. */
  gate: Gatekeeper;
  aiUrl: string;
}

const ChatInput = z.object({ question: z.string().trim().min(1).max(500) }).strict();

export function addTenantRoutes(app: Hono, deps: TenantRouteDeps): void {
  /** The caller's tenant, or the gateway's refusal (401, 403 or 429) as a Response. */
  const tenantOf = async (c: Context, scope: ApiKeyScope = 'jobs:read') => {
    const principal = await admitHttp(deps.gate, c, scope);
    return principal instanceof Response ? principal : principal.tenantId;
  };

  // `operator`: the key may requeue and rerun jobs (scope `jobs:manage`), so the pages show those
  // buttons; the gateway still checks the scope on every such call.
  app.get('/api/whoami', async (c) => {
    const principal = await admitHttp(deps.gate, c, 'jobs:read');
    if (principal instanceof Response) return principal;
    return c.json({
      tenant: principal.tenantId,
      operator: hasScope(principal.scopes, 'jobs:manage'),
    });
  });

  app.get('/api/metrics', async (c) => {
    const tenant = await tenantOf(c);
    if (tenant instanceof Response) return tenant;
    const [byState, pending, calls] = await Promise.all([
      deps.db
        .selectFrom('jobs')
        .select(['state', sql<number>`count(*)`.as('n')])
        .where('tenant_id', '=', tenant)
        .groupBy('state')
        .execute(),
      deps.db
        .selectFrom('jobs')
        .select([sql<number>`count(*)`.as('n'), sql<string | null>`min(created_at)`.as('oldest')])
        .where('tenant_id', '=', tenant)
        .where('state', 'in', ['accepted', 'scheduled', 'queued'])
        .executeTakeFirst(),
      deps.db
        .selectFrom('provider_calls')
        .select(['call_class', 'outcome', sql<number>`count(*)`.as('n')])
        .where('tenant_id', '=', tenant)
        .groupBy(['call_class', 'outcome'])
        .execute(),
    ]);
    const oldest = pending?.oldest ? Date.parse(pending.oldest) : undefined;
    return c.json({
      queueDepth: Number(pending?.n ?? 0),
      oldestPendingAgeSec: oldest ? Math.max(0, (Date.now() - oldest) / 1000) : 0,
      jobsByState: Object.fromEntries(byState.map((r) => [r.state, Number(r.n)])),
      providerCalls: calls.map((r) => ({
        class: r.call_class,
        outcome: r.outcome,
        n: Number(r.n),
      })),
    });
  });

  app.post('/api/chat', async (c) => {
    const tenant = await tenantOf(c);
    if (tenant instanceof Response) return tenant;
    const input = ChatInput.safeParse(await c.req.json().catch(() => null));
    if (!input.success) {
      return c.json(
        { error: { code: 'BAD_REQUEST', message: 'a question of 1 to 500 characters' } },
        400,
      );
    }
    const done = await listJobs(deps.db, tenant, {
      kind: 'document.analyze',
      state: 'succeeded',
      limit: 100,
    });
    const intents = done.items.flatMap((job) => {
      const out = job.output as { filename: string; intents: Intent[] } | null;
      return (out?.intents ?? []).map((intent) => ({
        intent,
        document: out!.filename,
        jobId: job.id,
      }));
    });
    return c.json(answerQuestion(input.data.question, intents));
  });

  app.get('/api/faults', async (c) => {
    const tenant = await tenantOf(c);
    if (tenant instanceof Response) return tenant;
    const res = await fetch(`${deps.aiUrl}/admin/faults`);
    return c.json(await res.json(), res.status as 200);
  });

  app.post('/api/faults', async (c) => {
    const tenant = await tenantOf(c, 'jobs:submit');
    if (tenant instanceof Response) return tenant;
    const res = await fetch(`${deps.aiUrl}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: await c.req.text(),
    });
    return c.json(await res.json(), res.status as 200);
  });
}
