// The optional archive: before a batch is removed, each of its jobs is written as one JSON line —
// the job row, its events, its provider-call ledger rows and its unit checkpoints — to the blob
// store at `archive/<tenant>/<yyyy-mm-dd>/<batch>.jsonl` (the day the sweep ran, UTC). The batch
// is removed only after every one of its archive objects is stored: a failed write removes
// nothing, and the next sweep writes the batch again under a new batch name. So an archive is
// at-least-once: a crash after the write and before the removal, or a job held at the last
// moment, leaves a line for a job that is still in the database (readers dedupe by `job.id`).
// Bytes (assets, uploads) are not archived: the archive is the record, not the outputs.

import { sql } from 'kysely';
import type { BlobStore } from '../blobs/blob-store.js';
import type { Db } from '../database.js';
import { fromJson } from '../json.js';
import { inList, type RetentionCandidate } from './retention-sql.js';

type Row = Record<string, unknown>;

/** Columns stored as JSON text: parsed, so the archive holds the documents, not strings. */
const JSON_COLUMNS: Record<string, readonly string[]> = {
  jobs: ['input', 'output', 'error', 'file_ids', 'waiting'],
  job_events: ['payload'],
  provider_calls: ['response', 'error'],
  units: ['result'],
};

function parsed(table: string, row: Row): Row {
  const out: Row = { ...row };
  for (const c of JSON_COLUMNS[table] ?? []) {
    const v = out[c];
    if (typeof v === 'string') {
      try {
        out[c] = fromJson(v);
      } catch {
        // `waiting` and friends are written by us; anything else stays as stored
      }
    }
  }
  return out;
}

async function rowsOf(
  db: Db,
  table: string,
  column: string,
  ids: readonly string[],
  order: string,
) {
  const r = await sql<Row>`select * from ${sql.table(table)} where ${sql.ref(column)} in ${inList(
    ids,
  )} order by ${sql.raw(order)}`.execute(db);
  const byJob = new Map<string, Row[]>();
  for (const row of r.rows) {
    const id = String(row[column]);
    byJob.set(id, [...(byJob.get(id) ?? []), parsed(table, row)]);
  }
  return byJob;
}

/** One JSON line per job: `{ job, events, providerCalls, units }`, grouped by tenant. */
export async function archiveLines(
  db: Db,
  jobs: readonly RetentionCandidate[],
): Promise<Map<string, string[]>> {
  const ids = jobs.map((j) => j.id);
  const [rows, events, calls, units] = await Promise.all([
    rowsOf(db, 'jobs', 'id', ids, 'id'),
    rowsOf(db, 'job_events', 'job_id', ids, 'job_id, seq'),
    rowsOf(db, 'provider_calls', 'job_id', ids, 'job_id, created_at, id'),
    rowsOf(db, 'units', 'job_id', ids, 'job_id, unit_key'),
  ]);
  const byTenant = new Map<string, string[]>();
  for (const j of jobs) {
    const job = rows.get(j.id)?.[0];
    if (!job) continue; // gone meanwhile: nothing to archive, nothing to remove
    const line = JSON.stringify({
      job,
      events: events.get(j.id) ?? [],
      providerCalls: calls.get(j.id) ?? [],
      units: units.get(j.id) ?? [],
    });
    byTenant.set(j.tenant_id, [...(byTenant.get(j.tenant_id) ?? []), line]);
  }
  return byTenant;
}

/** `archive/<tenant>/<yyyy-mm-dd>/<batch>.jsonl` */
export function archiveKey(tenantId: string, now: number, batch: string): string {
  return `archive/${tenantId}/${new Date(now).toISOString().slice(0, 10)}/${batch}.jsonl`;
}

/** Writes the batch's archive objects; throws (and the batch is not removed) if any write fails. */
export async function writeArchive(
  db: Db,
  blobs: BlobStore,
  jobs: readonly RetentionCandidate[],
  batch: string,
  now: number,
): Promise<string[]> {
  const keys: string[] = [];
  for (const [tenant, lines] of await archiveLines(db, jobs)) {
    const key = archiveKey(tenant, now, batch);
    const body = new Blob([`${lines.join('\n')}\n`]).stream();
    await blobs.put(key, body, { contentType: 'application/x-ndjson' });
    keys.push(key);
  }
  return keys;
}
