// The gateway's end of a Workflow run's job store (`wire/runtime-store.ts`): a run this
// gateway dispatched reads its job row and writes its provider ledger here, signed like the state
// callback. Every operation is applied by the repository function the Node runtimes call
// (`loadSnapshots`, `callsForUnit`, `recordCallIntent`, `recordCallOutcome`, `recordExternalId`,
// `transitionJob`): the fence is theirs, not a copy. A ledger row of a stale attempt is
// LEASE_LOST (409) and nothing is written; a job of another tenant is NOT_FOUND.

import { type ErrorCode } from '@sluice/contracts';
import {
  RuntimeStoreRequest,
  RUNTIME_STORE_PATH,
  type JobSnapshotWire,
  type SameKeys,
} from '../wire/index.js';
import {
  callsForUnit,
  loadSnapshots,
  recordCallIntent,
  recordCallOutcome,
  recordExternalId,
  transitionJob,
  type JobSnapshot,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';
import type { Context, Hono } from 'hono';
import { signedRoute, type SignedRouteOptions } from './signed-request.js';

// The wire schema is strict, so a field the stored snapshot gains and the wire lacks would make
// every Workflow's snapshot read fail at the Worker: the two must name the same fields.
const snapshotWireMatches: SameKeys<JobSnapshot, JobSnapshotWire> = true;
void snapshotWireMatches;

export interface RuntimeStoreDeps {
  database: SluiceDatabase;
  publish?: ((events: readonly StoredEvent[]) => void) | undefined;
  onReject?: ((code: ErrorCode) => void) | undefined;
}

export function registerRuntimeStore(
  app: Hono,
  deps: RuntimeStoreDeps,
  opts: SignedRouteOptions & { path?: string | undefined },
): void {
  const { refuse, readSigned } = signedRoute(opts, deps.onReject);
  const { database } = deps;
  const db = database.db;

  app.post(opts.path ?? RUNTIME_STORE_PATH, async (c) => {
    const read = await readSigned(c);
    if ('refused' in read) return read.refused;
    const parsed = RuntimeStoreRequest.safeParse(read.json);
    if (!parsed.success)
      return refuse(c, 'BAD_REQUEST', `invalid request: ${parsed.error.message}`);
    const req = parsed.data;
    const snap = (await loadSnapshots(database, [req.jobId])).get(req.jobId);
    // Answered only for the named tenant's own job (a missing one reads as null, not an error).
    if (snap && snap.tenantId !== req.tenantId) return notFound(c);
    switch (req.op) {
      case 'snapshot':
        return c.json({ snapshot: snap ?? null });
      case 'calls':
        return c.json({ calls: await callsForUnit(db, req.jobId, req.unitKey, req.callName) });
      case 'call_intent': {
        if (!snap) return notFound(c);
        const { op: _op, tenantId: _t, ...intent } = req;
        // Fenced in the insert itself (epoch and `running`): a stale attempt adds no row.
        const row = await recordCallIntent(db, intent);
        if (!row) return fenced(c, req.jobId);
        return c.json({ row });
      }
      case 'call_outcome':
      case 'external_id': {
        // The row must be this job's (and unit's): a signed request names no one else's row.
        const rows = snap ? await callsForUnit(db, req.jobId, req.unitKey) : [];
        if (!rows.some((r) => r.id === req.rowId)) return notFound(c);
        if (req.op === 'external_id') {
          await recordExternalId(db, req.rowId, req.externalId);
        } else {
          const { outcome, externalId, response, error } = req;
          await recordCallOutcome(db, req.rowId, {
            outcome,
            ...(externalId !== undefined ? { externalId } : {}),
            ...(response !== undefined ? { response } : {}),
            ...(error !== undefined ? { error } : {}),
          });
        }
        return c.json({ ok: true });
      }
      case 'dead_letter': {
        if (!snap) return notFound(c);
        const move = (tx: typeof db) =>
          transitionJob(tx, {
            id: req.jobId,
            event: 'dead_letter',
            epoch: req.epoch,
            reason: req.reason,
            detail: req.detail,
          });
        const r = database.capabilities.interactiveTransactions
          ? await database.transaction(move)
          : await move(db);
        if (r.ok) deps.publish?.([r.event]);
        return c.json({ moved: r.ok });
      }
    }
  });

  function notFound(c: Context) {
    return refuse(c, 'NOT_FOUND', 'no such job of this tenant');
  }
  function fenced(c: Context, jobId: string) {
    return refuse(c, 'LEASE_LOST', `${jobId}: the row moved on; nothing was written`);
  }
}
