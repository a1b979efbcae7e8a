// `appendAttemptEvents` for many attempts at once: ONE fenced UPDATE … FROM (VALUES …) per 400
// attempts that reserves each job's sequence numbers, then ONE multi-row event insert. Used by the
// worker's group commits (the event writer and the terminal writer), where the row-by-row form
// cost two statements per attempt. Same fence, row by row: the job must still be `running` at the
// attempt's epoch, else that attempt gets `undefined` and nothing of it is written.

import type { JobEvent } from '@sluice/contracts';
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { isPostgres } from '../dialect.js';
import { isoNow } from '../json.js';
import { insertEvents, type EventToInsert, type StoredEvent } from './events.js';
import { appendAttemptEvents, type AttemptEvent } from './jobs.js';

export interface AttemptEventBatch {
  id: string;
  epoch: number;
  events: readonly AttemptEvent[];
}

const CHUNK = 400;

/** Outcomes in input order: the stored events, or `undefined` for an attempt that was fenced. */
export async function appendAttemptEventsMany(
  tx: Db,
  attempts: readonly AttemptEventBatch[],
  now = Date.now(),
): Promise<(StoredEvent[] | undefined)[]> {
  const at = isoNow(now);
  const results = new Array<StoredEvent[] | undefined>(attempts.length);
  const bulk: number[] = [];
  const single: number[] = [];
  const seen = new Set<string>();
  attempts.forEach((a, i) => {
    if (a.events.length === 0) results[i] = [];
    // One job may be updated once per statement: a second attempt of it goes on its own.
    else if (seen.has(a.id)) single.push(i);
    else {
      seen.add(a.id);
      bulk.push(i);
    }
  });
  const pg = isPostgres(tx);
  const toInsert: EventToInsert[] = [];
  const owners: number[] = [];
  for (let c = 0; c < bulk.length; c += CHUNK) {
    const chunk = bulk.slice(c, c + CHUNK);
    const rows = chunk.map((i) => {
      const a = attempts[i] as AttemptEventBatch;
      return sql`(${a.id}, cast(${a.epoch} as integer), cast(${a.events.length} as integer))`;
    });
    // SQLite's RETURNING may name only the updated table's columns, unqualified; PostgreSQL
    // needs them qualified (v has an id too).
    const returned = pg
      ? sql`jobs.id, jobs.last_seq, jobs.tenant_id, jobs.kind`
      : sql`id, last_seq, tenant_id, kind`;
    const updated = await sql<{ id: string; last_seq: number; tenant_id: string; kind: string }>`
      with v(id, ep, n) as (values ${sql.join(rows)})
      update jobs set last_seq = jobs.last_seq + v.n, updated_at = ${at}
      from v where jobs.id = v.id and jobs.state = 'running' and jobs.epoch = v.ep
      returning ${returned}`.execute(tx);
    const byId = new Map(updated.rows.map((r) => [r.id, r]));
    for (const i of chunk) {
      const a = attempts[i] as AttemptEventBatch;
      const row = byId.get(a.id);
      if (!row) continue; // fenced: results[i] stays undefined
      const first = Number(row.last_seq) - a.events.length + 1;
      results[i] = [];
      a.events.forEach((e, k) => {
        const event = { ...e, jobId: a.id, seq: first + k, at } as JobEvent;
        toInsert.push({ tenantId: row.tenant_id, kind: row.kind, event });
        owners.push(i);
      });
    }
  }
  const stored = await insertEvents(tx, toInsert);
  stored.forEach((s, k) => results[owners[k] as number]?.push(s));
  for (const i of single) {
    const a = attempts[i] as AttemptEventBatch;
    results[i] = await appendAttemptEvents(tx, a.id, a.epoch, a.events, now);
  }
  return results;
}
