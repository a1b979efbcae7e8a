// The provider-call ledger: how the system proves a unit was billed once, and how a crashed
// attempt recovers a pollable call. A row is written (and committed) before the request leaves,
// by the live attempt only; its outcome is recorded when known, whoever is alive by then.

import { CALL_OUTCOMES, randomToken, type CallOutcome } from '@sluice/contracts';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../database.js';
import { fromJson, isoNow, toJson } from '../json.js';
import type { ProviderCallsTable } from '../schema.js';

let counter = 0;
/**
 * Ledger ids sort in creation order within a process (milliseconds, then a counter), so a unit's
 * history reads back in the order it was written even when two rows share a millisecond.
 */
export function newLedgerId(now = Date.now()): string {
  counter = (counter + 1) % 36 ** 4;
  return `pc_${now.toString(36).padStart(9, '0')}${counter.toString(36).padStart(4, '0')}${randomToken().slice(0, 10)}`;
}

export { CALL_OUTCOMES, type CallOutcome };

export interface LedgerRow {
  id: string;
  jobId: string;
  tenantId: string;
  unitKey: string;
  callName: string;
  attemptId: string;
  epoch: number;
  attempt: number;
  stage: string;
  provider: string;
  modality: string;
  callClass: string;
  requestKey: string | null;
  externalId: string | null;
  outcome: CallOutcome;
  response: unknown;
  error: unknown;
  authorisedBy: string | null;
  note: string | null;
  createdAt: string;
  updatedAt: string;
}

function toLedgerRow(r: Selectable<ProviderCallsTable>): LedgerRow {
  return {
    id: r.id,
    jobId: r.job_id,
    tenantId: r.tenant_id,
    unitKey: r.unit_key,
    callName: r.call_name,
    attemptId: r.attempt_id,
    epoch: Number(r.epoch),
    attempt: Number(r.attempt),
    stage: r.stage,
    provider: r.provider,
    modality: r.modality,
    callClass: r.call_class,
    requestKey: r.request_key,
    externalId: r.external_id,
    outcome: r.outcome as CallOutcome,
    response: r.response === null ? null : fromJson(r.response),
    error: r.error === null ? null : fromJson(r.error),
    authorisedBy: r.authorised_by,
    note: r.note,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface CallIntent {
  jobId: string;
  unitKey: string;
  callName: string;
  attemptId: string;
  epoch: number;
  stage: string;
  provider: string;
  modality: string;
  callClass: string;
  requestKey?: string | null;
  /** `pending` before sending; `refused` for a fail-closed call that is never sent. */
  outcome?: 'pending' | 'refused';
  error?: unknown;
}

/** Writes the ledger row of a call about to leave. `undefined` when the attempt is fenced off. */
export async function recordCallIntent(
  db: Db,
  c: CallIntent,
  now = Date.now(),
): Promise<LedgerRow | undefined> {
  const id = newLedgerId(now);
  const at = isoNow(now);
  const error = c.error === undefined ? null : toJson(c.error);
  const rows = await sql<Selectable<ProviderCallsTable>>`
    insert into provider_calls (id, job_id, tenant_id, unit_key, call_name, attempt_id, epoch, attempt, stage,
      provider, modality, call_class, request_key, external_id, outcome, response, error, authorised_by, note, created_at, updated_at)
    select ${id}, id, tenant_id, ${c.unitKey}, ${c.callName}, ${c.attemptId}, epoch, attempts, ${c.stage},
      ${c.provider}, ${c.modality}, ${c.callClass}, ${c.requestKey ?? null}, null, ${c.outcome ?? 'pending'}, null, ${error}, null, null, ${at}, ${at}
    from jobs where id = ${c.jobId} and epoch = ${c.epoch} and state = 'running'
    returning *`.execute(db);
  const row = rows.rows[0];
  return row ? toLedgerRow(row) : undefined;
}

export interface CallResult {
  outcome: Exclude<CallOutcome, 'pending' | 'authorised'>;
  externalId?: string | null;
  response?: unknown;
  error?: unknown;
}

/** Records what happened to a call. Not fenced: the ledger keeps the truth even from a zombie. */
export async function recordCallOutcome(
  db: Db,
  id: string,
  r: CallResult,
  now = Date.now(),
): Promise<void> {
  await db
    .updateTable('provider_calls')
    .set({
      outcome: r.outcome,
      updated_at: isoNow(now),
      ...(r.externalId !== undefined ? { external_id: r.externalId } : {}),
      ...(r.response !== undefined ? { response: toJson(r.response) } : {}),
      ...(r.error !== undefined ? { error: toJson(r.error) } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** Records a pollable call's external job id before anything waits on it. */
export async function recordExternalId(
  db: Db,
  id: string,
  externalId: string,
  now = Date.now(),
): Promise<void> {
  await db
    .updateTable('provider_calls')
    .set({ external_id: externalId, updated_at: isoNow(now) })
    .where('id', '=', id)
    .execute();
}

/** A person's approval of exactly one more call of a unit, with who and why. */
export async function authoriseCall(
  db: Db,
  a: {
    jobId: string;
    tenantId: string;
    unitKey: string;
    callName: string;
    by: string;
    note: string;
  },
  now = Date.now(),
): Promise<LedgerRow> {
  const at = isoNow(now);
  const row = await db
    .insertInto('provider_calls')
    .values({
      id: newLedgerId(now),
      job_id: a.jobId,
      tenant_id: a.tenantId,
      unit_key: a.unitKey,
      call_name: a.callName,
      attempt_id: '-',
      epoch: -1,
      attempt: 0,
      stage: 'review',
      provider: '-',
      modality: '-',
      call_class: '-',
      request_key: null,
      external_id: null,
      outcome: 'authorised',
      response: null,
      error: null,
      authorised_by: a.by,
      note: a.note,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toLedgerRow(row);
}

/** A unit's ledger in order (optionally one declared call), for recovery decisions and proofs. */
export async function callsForUnit(
  db: Db,
  jobId: string,
  unitKey: string,
  callName?: string,
): Promise<LedgerRow[]> {
  let q = db
    .selectFrom('provider_calls')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('unit_key', '=', unitKey);
  if (callName) q = q.where('call_name', '=', callName);
  return (await q.orderBy('created_at').orderBy('id').execute()).map(toLedgerRow);
}

export async function callsForJob(db: Db, jobId: string): Promise<LedgerRow[]> {
  return (
    await db
      .selectFrom('provider_calls')
      .selectAll()
      .where('job_id', '=', jobId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map(toLedgerRow);
}

/** Provider calls by class and outcome, for /metrics. */
export async function countCalls(
  db: Db,
): Promise<{ callClass: string; outcome: string; n: number }[]> {
  const rows = await db
    .selectFrom('provider_calls')
    .select(['call_class', 'outcome', sql<number>`count(*)`.as('n')])
    .groupBy(['call_class', 'outcome'])
    .execute();
  return rows.map((r) => ({ callClass: r.call_class, outcome: r.outcome, n: Number(r.n) }));
}
