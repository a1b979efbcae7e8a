// The gateway's end of the authenticated state callback (`wire/state-callback.ts`): a
// Worker running a job on Cloudflare Workflows reports its attempt writes here, and they land in
// the gateway's database under the same epoch fence as every other attempt write. The run's reads
// and ledger rows go to its sibling, the store route (runtime-store-route.ts), registered with it.
//
// Order of the checks, each refusing with a typed error and writing nothing: size, timestamp
// window, HMAC signature and JSON (signed-request.ts, shared with the store route), the zod
// schema, the job exists with the reported tenant and kind, then the fenced write itself (a stale
// attempt, or a replayed report whose fence has moved on, is LEASE_LOST: 409).

import { type ErrorCode } from '@sluice/contracts';
import { STATE_CALLBACK_PATH, StateReport } from '../wire/index.js';
import { getJobById, writeAttempts, type SluiceDatabase, type StoredEvent } from '@sluice/storage';
import type { Hono } from 'hono';
import type { RuntimeRoutes } from '@sluice/gateway';
import { registerRuntimeStore } from './runtime-store-route.js';
import { signedRoute, type SignedRouteOptions } from './signed-request.js';

export interface StateCallbackOptions extends SignedRouteOptions {
  path?: string | undefined;
  /** Path of the run's store route (`runtime-store-route.ts`). */
  storePath?: string | undefined;
}

export interface StateCallbackDeps {
  database: SluiceDatabase;
  /** The events a report stored, for this gateway's subscribers. */
  publish?: ((events: readonly StoredEvent[]) => void) | undefined;
  /** Counts refusals by code (metrics). */
  onReject?: ((code: ErrorCode) => void) | undefined;
}

export function registerStateCallback(
  app: Hono,
  deps: StateCallbackDeps,
  opts: StateCallbackOptions,
): void {
  const { refuse, readSigned } = signedRoute(opts, deps.onReject);
  // The run's reads and ledger writes: the other half of a Workflow run this gateway dispatched.
  registerRuntimeStore(app, deps, { ...opts, path: opts.storePath });

  app.post(opts.path ?? STATE_CALLBACK_PATH, async (c) => {
    const read = await readSigned(c);
    if ('refused' in read) return read.refused;
    const json = read.json;
    const parsed = StateReport.safeParse(json);
    if (!parsed.success) return refuse(c, 'BAD_REQUEST', `invalid report: ${parsed.error.message}`);
    const report = parsed.data;
    // Events are numbered on from the fence (what the write model stores them as).
    if (
      report.events.some((e, i) => e.jobId !== report.id || e.seq !== report.fence.lastSeq + 1 + i)
    ) {
      return refuse(c, 'BAD_REQUEST', 'events must be of the job, numbered on from the fence');
    }
    // The events are stored under the reported tenant: it must be the job's own.
    const row = await getJobById(deps.database.db, report.id);
    if (!row || row.tenantId !== report.tenantId || row.kind !== report.kind) {
      return refuse(c, 'NOT_FOUND', `no job ${report.id} of this tenant and kind`);
    }
    const result = await writeAttempts(deps.database, [report]);
    if (!result.applied[0]) {
      return refuse(c, 'LEASE_LOST', `${report.id}: the row moved on; nothing was written`);
    }
    deps.publish?.(result.events);
    return c.json({ applied: true, events: result.events.length });
  });
}

/** The state callback and its store route, as the routes a runtime adds to the gateway. */
export function stateCallbackRoutes(opts: StateCallbackOptions): RuntimeRoutes {
  return (app, deps) => registerStateCallback(app, deps, opts);
}
