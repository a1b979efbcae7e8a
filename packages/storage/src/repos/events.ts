// Job events: appended in the transaction that changes the job, read back by sequence number
// (subscription backfill) or by global id (the SQLite tailer). A row holds one event, or a job's
// consecutive events written together (`seq`..`seq_end`, payload an array: event-rows.ts); the
// readers here always hand out single events, so nobody above storage sees the difference. On PostgreSQL a statement trigger
// (migration 0004) sends NOTIFY with the new event ids; notifications are delivered at commit, in
// commit order, so the listener never sees an event before it is visible.

import type { JobEvent } from '@sluice/contracts';
import type { Db } from '../database.js';
import { toJson } from '../json.js';
import { rowsPerStatement } from '../dialect/storage-dialect.js';
import { eventsOfRow, type EventToInsert, type StoredEvent } from './event-rows.js';

export type { EventToInsert, StoredEvent } from './event-rows.js';

export const EVENTS_CHANNEL = 'sluice_events';

/**
 * Rows per insert statement: 7 parameters a row is 14,000 per statement, inside SQLite's 32,766
 * and PostgreSQL's 65,535 (a group commit of many attempts' progress can exceed one statement).
 */
const INSERT_CHUNK = 2000;

export async function insertEvents(
  tx: Db,
  events: readonly EventToInsert[],
): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const perStatement = rowsPerStatement(tx, INSERT_CHUNK, 7);
  for (let c = 0; c < events.length; c += perStatement) {
    const chunk = events.slice(c, c + perStatement);
    const rows = await tx
      .insertInto('job_events')
      .values(
        chunk.map((e) => ({
          job_id: e.event.jobId,
          tenant_id: e.tenantId,
          kind: e.kind,
          seq: e.event.seq,
          type: e.event.type,
          payload: toJson(e.event),
          created_at: e.event.at,
        })),
      )
      .returning('id')
      .execute();
    chunk.forEach((e, i) => out.push({ id: Number(rows[i]?.id), ...e }));
  }
  return out;
}

/** A job's events after `afterSeq`, in order (subscription backfill): those of at most `limit` rows. */
export async function listEvents(
  db: Db,
  jobId: string,
  afterSeq = 0,
  limit = 1000,
): Promise<JobEvent[]> {
  const rows = await db
    .selectFrom('job_events')
    .select(['payload', 'seq_end'])
    .where('job_id', '=', jobId)
    .where((eb) => eb(eb.fn.coalesce('seq_end', 'seq'), '>', afterSeq))
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.flatMap((r) => eventsOfRow(r.payload, r.seq_end).filter((e) => e.seq > afterSeq));
}

function toStored(r: {
  id: number;
  tenant_id: string;
  kind: string;
  payload: unknown;
  seq_end: number | null;
}): StoredEvent[] {
  const id = Number(r.id);
  return eventsOfRow(r.payload, r.seq_end).map((event) => ({
    id,
    tenantId: r.tenant_id,
    kind: r.kind,
    event,
  }));
}

/** Events with a global id above `afterId` (the SQLite tailer's poll). */
export async function eventsSince(db: Db, afterId: number, limit = 1000): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('job_events')
    .select(['id', 'tenant_id', 'kind', 'payload', 'seq_end'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.flatMap(toStored);
}

export async function eventsByIds(db: Db, ids: readonly number[]): Promise<StoredEvent[]> {
  if (ids.length === 0) return [];
  // In id order: chunks of sorted ids (D1 binds 100 parameters a statement), each ordered.
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const perStatement = rowsPerStatement(db, sorted.length, 1);
  const out: StoredEvent[] = [];
  for (let c = 0; c < sorted.length; c += perStatement) {
    const rows = await db
      .selectFrom('job_events')
      .select(['id', 'tenant_id', 'kind', 'payload', 'seq_end'])
      .where('id', 'in', sorted.slice(c, c + perStatement))
      .orderBy('id')
      .execute();
    out.push(...rows.flatMap(toStored));
  }
  return out;
}

export async function maxEventId(db: Db): Promise<number> {
  const row = await db
    .selectFrom('job_events')
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}
