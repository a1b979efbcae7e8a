// How events sit in `job_events` rows: one event per row (transitions written one at a time), or
// a job's consecutive events written together in one row (an attempt's `running`, progress, unit
// and terminal events): `seq` is the first sequence number, `seq_end` the last, and the payload
// is an array. Fewer rows and index entries per job; readers (events.ts) expand rows back into
// single events, so a watcher still resumes after any sequence number and sees each event once.

import type { JobEvent } from '@sluice/contracts';
import { fromJson, toJson } from '../json.js';

/** An event as stored: with the id of the row that holds it. */
export interface StoredEvent {
  /** Global insertion id. */
  id: number;
  tenantId: string;
  kind: string;
  event: JobEvent;
}

/** An event to append (its job's tenant and kind go on the row). */
export interface EventToInsert {
  tenantId: string;
  kind: string;
  event: JobEvent;
}

/** The row of one job's consecutive events (at least one). */
export interface EventRow {
  jobId: string;
  tenantId: string;
  kind: string;
  events: readonly JobEvent[];
}

/** Column values of an event row: `seq_end` is null for a single event. */
export function eventRowColumns(row: EventRow): {
  seq: number;
  seqEnd: number | null;
  type: string;
  payload: string;
  at: string;
} {
  const first = row.events[0];
  const last = row.events.at(-1);
  if (!first || !last) throw new Error(`event row of ${row.jobId} holds no event`);
  const single = row.events.length === 1;
  return {
    seq: first.seq,
    seqEnd: single ? null : last.seq,
    type: last.type,
    payload: toJson(single ? first : row.events),
    at: last.at,
  };
}

/** The events a stored row holds, in sequence order. */
export function eventsOfRow(payload: unknown, seqEnd: number | null): JobEvent[] {
  const parsed = fromJson<JobEvent | JobEvent[]>(payload);
  void seqEnd; // the payload's shape says it; seq_end is for range queries
  return Array.isArray(parsed) ? parsed : [parsed];
}
