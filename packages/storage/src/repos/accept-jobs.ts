// Group commit of accepted jobs: many new jobs written by one multi-row statement per table, each
// directly in the state the accept path gives it (`queued`, or `dead_lettered` when no worker
// serves its version) with the same two events `insertJob` + `transitionJob` would have written
// (seq 1 `accepted`, seq 2 the move). Rows are identical to the row-by-row path
// (accept-jobs.test.ts compares them column by column).
//
// The jobs insert is `ON CONFLICT DO NOTHING`: a job whose idempotency key another transaction
// stored meanwhile is skipped (and reported), never failing the others in the statement.

import type { JobState } from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoNow, toJson } from '../json.js';
import { insertEvents, type EventToInsert, type StoredEvent } from './events.js';
import type { NewJob } from './jobs.js';
import { toJobRow, type JobRow } from './job-row.js';
import { transitionEvent } from './transition-event.js';

/** Where an accepted job lands in the same transaction. */
export type AcceptedOutcome =
  { to: 'queued' } | { to: 'dead_lettered'; reason: string; detail?: string | undefined };

export interface AcceptedJob extends NewJob {
  outcome: AcceptedOutcome;
}

export interface AcceptedWrite {
  /** Ids of the jobs written (a skipped job lost its idempotency key to another writer). */
  inserted: Set<string>;
  /** Events of the written jobs, in insertion order (per job: seq 1, then seq 2). */
  events: StoredEvent[];
}

// Rows per statement: 22 parameters a job stays well under both dialects' limits.
const CHUNK = 250;

/** Inserts the jobs with both events; returns what was written. Run it inside a transaction. */
export async function insertAcceptedJobs(
  tx: Db,
  jobs: readonly AcceptedJob[],
  now = Date.now(),
): Promise<AcceptedWrite> {
  const at = isoNow(now);
  const inserted = new Set<string>();
  for (let c = 0; c < jobs.length; c += CHUNK) {
    const rows = await tx
      .insertInto('jobs')
      .values(
        jobs.slice(c, c + CHUNK).map((job) => ({
          id: job.id,
          tenant_id: job.tenantId,
          kind: job.kind,
          version: job.version,
          state: job.outcome.to satisfies JobState,
          input: toJson(job.input),
          output: null,
          error: null,
          reason: job.outcome.to === 'dead_lettered' ? job.outcome.reason : null,
          idempotency_key: job.idempotencyKey ?? null,
          input_hash: job.inputHash,
          file_ids: toJson(job.fileIds ?? []),
          attempts: 0,
          max_attempts: job.maxAttempts,
          epoch: 0,
          attempt_id: null,
          last_seq: 2,
          run_after: null,
          lease_until: null,
          created_at: at,
          updated_at: at,
          // Neither queued nor dead_lettered is final (a dead letter can be requeued).
          finished_at: null,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    for (const r of rows) inserted.add(r.id);
  }
  const events: EventToInsert[] = [];
  for (const job of jobs) {
    if (!inserted.has(job.id)) continue;
    const o = job.outcome;
    const base = { tenantId: job.tenantId, kind: job.kind };
    events.push(
      { ...base, event: transitionEvent(job.id, 1, at, null, 'accepted', 0, {}) },
      {
        ...base,
        event: transitionEvent(job.id, 2, at, 'accepted', o.to, 0, {
          ...(o.to === 'dead_lettered' ? { reason: o.reason, detail: o.detail } : {}),
        }),
      },
    );
  }
  const stored: StoredEvent[] = [];
  for (let c = 0; c < events.length; c += 2 * CHUNK) {
    stored.push(...(await insertEvents(tx, events.slice(c, c + 2 * CHUNK))));
  }
  return { inserted, events: stored };
}

export interface IdempotencyRef {
  tenantId: string;
  key: string;
}

/** `tenantId \0 key`: the map key of `findByIdempotencyKeys`. */
export function idempotencyRefKey(ref: IdempotencyRef): string {
  return `${ref.tenantId}\u0000${ref.key}`;
}

/** The stored jobs of these (tenant, key) pairs, by `idempotencyRefKey`. */
export async function findByIdempotencyKeys(
  db: Db,
  refs: readonly IdempotencyRef[],
): Promise<Map<string, JobRow>> {
  const out = new Map<string, JobRow>();
  const unique = [...new Map(refs.map((r) => [idempotencyRefKey(r), r])).values()];
  for (let c = 0; c < unique.length; c += CHUNK) {
    const chunk = unique.slice(c, c + CHUNK);
    // An OR of (tenant, key) equalities: both dialects answer it from the unique index.
    const rows = await db
      .selectFrom('jobs')
      .selectAll()
      .where((eb) =>
        eb.or(
          chunk.map((r) =>
            eb.and([eb('tenant_id', '=', r.tenantId), eb('idempotency_key', '=', r.key)]),
          ),
        ),
      )
      .execute();
    for (const row of rows) {
      const job = toJobRow(row);
      if (job.idempotencyKey !== null)
        out.set(idempotencyRefKey({ tenantId: job.tenantId, key: job.idempotencyKey }), job);
    }
  }
  return out;
}

/**
 * Which of these files exist for the tenant that names them, as `tenantId \0 fileId`: another
 * tenant's file is reported exactly like a missing one.
 */
export async function ownedFileRefs(
  db: Db,
  refs: readonly { tenantId: string; fileId: string }[],
): Promise<Set<string>> {
  const owned = new Set<string>();
  const ids = [...new Set(refs.map((r) => r.fileId))];
  for (let c = 0; c < ids.length; c += 500) {
    const rows = await db
      .selectFrom('files')
      .select(['id', 'tenant_id'])
      .where('id', 'in', ids.slice(c, c + 500))
      .execute();
    for (const r of rows) owned.add(`${r.tenant_id}\u0000${r.id}`);
  }
  return owned;
}
