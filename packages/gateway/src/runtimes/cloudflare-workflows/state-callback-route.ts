// The gateway's end of the authenticated state callback (contracts `state-callback.ts`): a
// Worker running a job on Cloudflare Workflows reports its attempt writes here, and they land in
// the gateway's database under the same epoch fence as every other attempt write.
//
// Order of the checks, each refusing with a typed error and writing nothing: size (from the
// header, before reading), timestamp window and HMAC signature (before parsing anything), JSON
// and the zod schema, the job exists with the reported tenant and kind, then the fenced write
// itself (a stale attempt, or a replayed report whose fence has moved on, is LEASE_LOST: 409).

import {
  SluiceError,
  STATE_CALLBACK_HEADERS,
  STATE_CALLBACK_PATH,
  StateReport,
  verifyStateReport,
  type ErrorCode,
} from '@sluice/contracts';
import { getJobById, writeAttempts, type SluiceDatabase, type StoredEvent } from '@sluice/storage';
import type { Context, Hono } from 'hono';

export interface StateCallbackOptions {
  /** The secret shared with the Workers (at least 32 characters). */
  secret: string;
  path?: string | undefined;
  windowMs?: number | undefined;
  /** Largest report accepted (default 1 MiB). */
  maxBytes?: number | undefined;
  /** Tests: the gateway's clock. */
  now?: (() => number) | undefined;
}

export interface StateCallbackDeps {
  database: SluiceDatabase;
  /** The events a report stored, for this gateway's subscribers. */
  publish?: ((events: readonly StoredEvent[]) => void) | undefined;
  /** Counts refusals by code (metrics). */
  onReject?: ((code: ErrorCode) => void) | undefined;
}

const STATUS: Partial<Record<ErrorCode, 400 | 401 | 404 | 409 | 413>> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  LEASE_LOST: 409,
  PAYLOAD_TOO_LARGE: 413,
};

export function registerStateCallback(
  app: Hono,
  deps: StateCallbackDeps,
  opts: StateCallbackOptions,
): void {
  if (opts.secret.length < 32) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'the state callback secret needs at least 32 characters',
    );
  }
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  const now = opts.now ?? Date.now;
  const refuse = (c: Context, code: ErrorCode, message: string) => {
    deps.onReject?.(code);
    return c.json({ error: { code, message } }, STATUS[code] ?? 400);
  };

  app.post(opts.path ?? STATE_CALLBACK_PATH, async (c) => {
    const length = Number(c.req.header('content-length') ?? NaN);
    if (!Number.isFinite(length)) return refuse(c, 'BAD_REQUEST', 'Content-Length is required');
    if (length > maxBytes) return refuse(c, 'PAYLOAD_TOO_LARGE', `report over ${maxBytes} bytes`);
    const body = await c.req.text();
    const check = await verifyStateReport({
      secret: opts.secret,
      body,
      timestamp: c.req.header(STATE_CALLBACK_HEADERS.timestamp),
      signature: c.req.header(STATE_CALLBACK_HEADERS.signature),
      now: now(),
      windowMs: opts.windowMs,
    });
    if (check !== 'ok') return refuse(c, 'UNAUTHORIZED', `report refused: ${check}`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return refuse(c, 'BAD_REQUEST', 'report is not JSON');
    }
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
