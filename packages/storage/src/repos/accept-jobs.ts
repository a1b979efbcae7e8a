// Group commit of accepted jobs: many new jobs written by one multi-row statement per table, each
// directly in the state the accept path gives it (`queued`, or `dead_lettered` when no worker
// serves its version) with the same two events `insertJob` + `transitionJob` would have written
// (seq 1 `accepted`, seq 2 the move), stored as ONE event row (seq 1..2, event-rows.ts). Job rows
// are identical to the row-by-row path (accept-jobs.test.ts compares them column by column).
//
// The jobs insert is `ON CONFLICT DO NOTHING`: a job whose idempotency key another transaction
// stored meanwhile is skipped (and reported), never failing the others in the statement. The
// statements are the dialect's (`insertAccepted`: PostgreSQL one statement whose events insert
// reads what the jobs insert wrote; SQLite two), and so is the atomic unit (`acceptJobs`: a
// transaction, or one batch per chunk on D1).

import type { Db, SluiceDatabase } from '../database.js';
import { dialectOf, rowsPerStatement } from '../dialect/storage-dialect.js';
import { isoNow } from '../json.js';
import {
  acceptEventRows,
  storedAcceptEvents,
  type AcceptedJob,
  type AcceptedWrite,
} from './accept-rows.js';
import { toJobRow, type JobRow } from './job-row.js';

export {
  acceptedRunAfter,
  acceptEventRows,
  storedAcceptEvents,
  type AcceptedJob,
  type AcceptedOutcome,
  type AcceptedWrite,
  type EventIdRow,
} from './accept-rows.js';

/** Jobs per statement, inside every dialect's parameter limit (D1's is smaller: rowsPerStatement). */
const CHUNK = 250;

/** Options of `acceptJobs`. */
export interface AcceptOptions {
  /**
   * On D1, the queued jobs' outbox rows go in the same batch (a Worker stopped right after the
   * accept cannot leave a queued job the reconciler does not know of). Elsewhere the caller
   * stages them inside its own transaction.
   */
  outbox?: boolean | undefined;
  /** The scheduled jobs' rows too (a runtime whose run waits for the due time itself, `delaysInRun`). */
  outboxScheduled?: boolean | undefined;
}

/**
 * Accepts the jobs atomically on any database, as its dialect does it: inside one transaction
 * where there is one, as ONE `batch()` per chunk on D1. Same rows and events either way.
 */
export async function acceptJobs(
  database: SluiceDatabase,
  jobs: readonly AcceptedJob[],
  now = Date.now(),
  opts: AcceptOptions = {},
): Promise<AcceptedWrite> {
  if (jobs.length === 0) return { inserted: new Set(), events: [] };
  return database.dialect.acceptJobs(jobs, now, opts);
}

/** Inserts the jobs with both events; returns what was written. Run it inside a transaction. */
export async function insertAcceptedJobs(
  tx: Db,
  jobs: readonly AcceptedJob[],
  now = Date.now(),
): Promise<AcceptedWrite> {
  const at = isoNow(now);
  const dialect = dialectOf(tx);
  const written: AcceptedWrite = { inserted: new Set(), events: [] };
  for (let c = 0; c < jobs.length; c += CHUNK) {
    const chunk = jobs.slice(c, c + CHUNK);
    const { events, rows: eventRows } = acceptEventRows(chunk, at);
    const rows = await dialect.insertAccepted(tx, chunk, eventRows, at);
    for (const r of rows) if (r.event_id === null) written.inserted.add(r.job_id);
    written.events.push(...storedAcceptEvents(events, rows));
  }
  return written;
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
  const perStatement = rowsPerStatement(db, CHUNK, 2);
  for (let c = 0; c < unique.length; c += perStatement) {
    const chunk = unique.slice(c, c + perStatement);
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
  const perStatement = rowsPerStatement(db, 500, 1);
  for (let c = 0; c < ids.length; c += perStatement) {
    const rows = await db
      .selectFrom('files')
      .select(['id', 'tenant_id'])
      .where('id', 'in', ids.slice(c, c + perStatement))
      .execute();
    for (const r of rows) owned.add(`${r.tenant_id}\u0000${r.id}`);
  }
  return owned;
}
