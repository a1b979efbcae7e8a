// `bulk.*` (scope `jobs:manage`): an action over every job a filter matches, in the key's own
// tenant. `preview` is the dry run (how many the action can move now); `start` stores a tracked
// operation — idempotent by its operation key — with the audit row saying who started it and
// why, and wakes this gateway's runner (operator/bulk-runner.ts); `get` and `list` show progress.

import {
  BulkGetInput,
  BulkListInput,
  BulkListResult,
  BulkOperationView,
  BulkPreview,
  BulkPreviewInput,
  BulkStartInput,
  SluiceError,
  type BulkAction,
  type JobFilter,
} from '@sluice/contracts';
import {
  appendAudit,
  countSearch,
  getBulkOperation,
  insertBulkOperation,
  listBulkOperations,
  type BulkOperationRow,
} from '@sluice/storage/portable';
import { bulkSearch } from '../operator/bulk-filter.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

/** The most jobs a dry run counts (a larger match says "at least this many"). */
const PREVIEW_CAP = 100_000;

function toView(op: BulkOperationRow, isDuplicate?: boolean): BulkOperationView {
  return {
    id: op.id,
    operationKey: op.operationKey,
    action: op.action as BulkAction,
    filter: op.filter as JobFilter,
    note: op.note,
    state: op.state,
    total: op.total,
    processed: op.processed,
    applied: op.applied,
    skipped: op.skipped,
    failed: op.failed,
    error: op.error,
    createdBy: op.createdBy,
    createdAt: op.createdAt,
    updatedAt: op.updatedAt,
    finishedAt: op.finishedAt,
    ...(isDuplicate !== undefined ? { isDuplicate } : {}),
  };
}

export function createBulkRouter(p: Procedures, deps: RouterDeps) {
  const { database } = deps;
  const db = database.db;
  return p.router({
    preview: p
      .scoped('jobs:manage')
      .input(BulkPreviewInput)
      .output(BulkPreview)
      .query(async ({ ctx, input }) => {
        const search = bulkSearch(ctx.tenantId, input.action, input.filter);
        const count = await countSearch(db, search, PREVIEW_CAP);
        return { action: input.action, count, cap: PREVIEW_CAP };
      }),

    start: p
      .scoped('jobs:manage')
      .input(BulkStartInput)
      .output(BulkOperationView)
      .mutation(async ({ ctx, input }) => {
        const search = bulkSearch(ctx.tenantId, input.action, input.filter);
        const total = await countSearch(db, search, PREVIEW_CAP);
        const r = await database.transaction(async (tx) => {
          const stored = await insertBulkOperation(tx, {
            tenantId: ctx.tenantId,
            operationKey: input.operationKey,
            action: input.action,
            filter: input.filter,
            params: input.fromUnit ? { fromUnit: input.fromUnit } : {},
            note: input.note ?? null,
            total,
            createdBy: ctx.keyId ?? null,
          });
          if (!stored.isDuplicate) {
            await appendAudit(tx, [
              {
                tenantId: ctx.tenantId,
                keyId: ctx.keyId ?? null,
                action: 'bulk.start',
                target: stored.op.id,
                note: input.note ?? null,
                details: { action: input.action, filter: input.filter, total },
              },
            ]);
          }
          return stored;
        });
        if (r.isDuplicate && r.op.action !== input.action) {
          throw new SluiceError(
            'CONFLICT',
            'operationKey: already names an operation of another action',
            {
              details: { field: 'operationKey', id: r.op.id },
            },
          );
        }
        if (!r.isDuplicate) deps.bulk?.poke();
        return toView(r.op, r.isDuplicate);
      }),

    get: p
      .scoped('jobs:manage')
      .input(BulkGetInput)
      .output(BulkOperationView)
      .query(async ({ ctx, input }) => {
        const op = await getBulkOperation(db, ctx.tenantId, input.id);
        if (!op) throw new SluiceError('NOT_FOUND', 'bulk operation not found');
        return toView(op);
      }),

    list: p
      .scoped('jobs:manage')
      .input(BulkListInput)
      .output(BulkListResult)
      .query(async ({ ctx, input }) => ({
        items: (await listBulkOperations(db, ctx.tenantId, input.limit)).map((op) => toView(op)),
      })),
  });
}
