// `keys.*` (scope `admin`): the caller's own tenant's API keys. A create or revoke and its audit
// row (who, why) commit together; a refused request writes nothing. Revoking reaches only the
// caller's tenant: another tenant's key answers exactly like a missing one. A revoked key stops
// verifying once the gateway's key cache lets go of it (its TTL).

import {
  KeyCreateInput,
  KeyCreateResult,
  KeyListResult,
  KeyRevokeInput,
  SluiceError,
  type ApiKeyView,
} from '@sluice/contracts';
import { appendAudit, createApiKeyWeb, parseScopes, type Db } from '@sluice/storage/portable';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

const columns = [
  'id',
  'label',
  'scopes',
  'created_at',
  'expires_at',
  'last_used_at',
  'revoked_at',
] as const;

async function readKeys(db: Db, tenantId: string, id?: string): Promise<ApiKeyView[]> {
  let q = db.selectFrom('api_keys').select(columns).where('tenant_id', '=', tenantId);
  if (id) q = q.where('id', '=', id);
  const rows = await q.orderBy('created_at', 'desc').limit(500).execute();
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    scopes: parseScopes(r.scopes),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  }));
}

export function createKeysRouter(p: Procedures, deps: RouterDeps) {
  const { database } = deps;
  return p.router({
    list: p
      .scoped('admin')
      .output(KeyListResult)
      .query(async ({ ctx }) => ({ items: await readKeys(database.db, ctx.tenantId) })),

    create: p
      .scoped('admin')
      .input(KeyCreateInput)
      .output(KeyCreateResult)
      .mutation(async ({ ctx, input }) => {
        const expiresAt = input.expiresAt ? new Date(input.expiresAt) : undefined;
        if (expiresAt && expiresAt.getTime() <= Date.now()) {
          throw new SluiceError('BAD_REQUEST', 'expiresAt: must be in the future', {
            details: { field: 'expiresAt' },
          });
        }
        return database.transaction(async (tx) => {
          const created = await createApiKeyWeb(tx, ctx.tenantId, {
            label: input.label,
            scopes: input.scopes,
            ...(expiresAt ? { expiresAt } : {}),
          });
          await appendAudit(tx, [
            {
              tenantId: ctx.tenantId,
              keyId: ctx.keyId ?? null,
              action: 'key.create',
              target: created.id,
              note: input.note ?? null,
              details: { label: input.label, scopes: input.scopes },
            },
          ]);
          const [view] = await readKeys(tx, ctx.tenantId, created.id);
          return { ...(view as ApiKeyView), key: created.key };
        });
      }),

    revoke: p
      .scoped('admin')
      .input(KeyRevokeInput)
      .output(KeyListResult.shape.items.element)
      .mutation(async ({ ctx, input }) =>
        database.transaction(async (tx) => {
          const r = await tx
            .updateTable('api_keys')
            .set({ revoked_at: new Date().toISOString() })
            .where('id', '=', input.id)
            .where('tenant_id', '=', ctx.tenantId)
            .where('revoked_at', 'is', null)
            .executeTakeFirst();
          const [view] = await readKeys(tx, ctx.tenantId, input.id);
          if (!view) throw new SluiceError('NOT_FOUND', 'API key not found');
          // Revoking a revoked key changes nothing and is not audited twice.
          if (r.numUpdatedRows === 1n) {
            await appendAudit(tx, [
              {
                tenantId: ctx.tenantId,
                keyId: ctx.keyId ?? null,
                action: 'key.revoke',
                target: input.id,
                note: input.note ?? null,
                details: {},
              },
            ]);
          }
          return view;
        }),
      ),
  });
}
