// What a chaos soak left behind, read from the database, the blob store and the provider's own
// billing ledger (never from the workers' word):
// - lost: a submitted job that is not terminal (finished or parked) at the end;
// - double-billed units: a unit the provider billed more than once. An ambiguous sync call whose
//   job went to needs_review may have billed once; a second bill is a double bill like any other;
// - orphan blobs: a stored object with no asset row (staging leftovers of dead attempts included,
//   once the sweepers had their rounds);
// - ghost rows: a unit checkpoint, asset row or `succeeded` call-ledger row for a unit the
//   provider never billed, or an asset row whose blob is missing or differs;
// - zombie writes landed: a stale attempt's write that changed something, derived from the events
//   and the attempt each row names: a state event whose `from` is not the previous `to`, an event
//   after the terminal one, a terminal event from an attempt older than the newest one started.
//   Rows of attempt n created after attempt n+1 was admitted are counted apart (see
//   `rowsAfterTakeoverAdmitted`): by the wall clock they look late, in the database's order they
//   are not.

import { createHash } from 'node:crypto';
import { isTerminalState, type JobEvent, type JobState } from '@sluice/contracts';
import { eventsOfRow, type BlobStore, type Db, type SluiceDatabase } from '@sluice/storage';
import type { LedgerRecord } from '@sluice/testkit';
import type { FaultCounts } from './chaos-faults.js';

export interface ChaosFigures {
  submitted: number;
  byState: Record<string, number>;
  lost: number;
  doubleBilled: number;
  /** Of the double-billed units, those of jobs that ended needs_review. */
  reviewRebilled: number;
  orphanBlobs: number;
  ghostRows: number;
  zombieWritesLanded: number;
  /**
   * Unit, asset or call rows of attempt n created after attempt n+1 was admitted (printed, not
   * a required zero): with lazy start the next attempt's epoch is written at its first durable
   * write, not at admission, and a publish that locked the job row and checked ownership before
   * the takeover commits first in the database's order — legal under the fence, yet late by
   * the wall clock. A fence violation shows in the events (the zombie figure above).
   */
  rowsAfterTakeoverAdmitted: number;
  providerBills: number;
  faults: FaultCounts;
  runMs: number;
  /** Up to 10 examples per non-zero figure, for the report. */
  examples: Record<string, string[]>;
}

export const REQUIRED_ZEROS = [
  'lost',
  'doubleBilled',
  'orphanBlobs',
  'ghostRows',
  'zombieWritesLanded',
] as const satisfies readonly (keyof ChaosFigures)[];

interface AuditInput {
  database: SluiceDatabase;
  blobs: BlobStore;
  ledger: readonly LedgerRecord[];
  ids: readonly string[];
  faults: FaultCounts;
  runMs: number;
}

const unitKey = (jobId: string, unit: string) => `${jobId} ${unit}`;
/** The planned unit (`u0`…) a unit or asset row belongs to; asset rows name it `unit:u0`. */
const plannedUnit = (key: string) => /^(?:unit:)?(u\d+)$/.exec(key)?.[1];

async function readAll(blobs: BlobStore, key: string): Promise<Buffer | undefined> {
  const body = await blobs.get(key);
  return body ? Buffer.from(await new Response(body).arrayBuffer()) : undefined;
}

/** Every job's events in seq order, read in pages of 5,000 rows: a query per page, not per job. */
async function eventsByJob(db: Db): Promise<Map<string, JobEvent[]>> {
  const out = new Map<string, JobEvent[]>();
  for (let after = 0; ;) {
    const rows = await db
      .selectFrom('job_events')
      .select(['id', 'job_id', 'payload', 'seq_end'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(5000)
      .execute();
    for (const r of rows) {
      const list = out.get(r.job_id) ?? [];
      list.push(...eventsOfRow(r.payload, r.seq_end));
      out.set(r.job_id, list);
    }
    if (rows.length < 5000) break;
    after = Number(rows.at(-1)!.id);
  }
  for (const list of out.values()) list.sort((x, y) => x.seq - y.seq);
  return out;
}

/** Zombie writes in one job's events; `starts` gets attempt number → when it started. */
function eventZombies(events: readonly JobEvent[], starts: Map<number, number>): string[] {
  const out: string[] = [];
  let state: JobState | null = null;
  let terminalSeq = 0;
  let terminalAttempt: number | undefined;
  for (const e of events) {
    if (terminalSeq && e.seq > terminalSeq) out.push(`event ${e.seq} (${e.type}) after terminal`);
    if (!('to' in e)) continue;
    if (state !== null && e.from !== state)
      out.push(`event ${e.seq}: ${e.from}→${e.to} from ${state}`);
    state = e.to;
    if (e.to === 'running' && e.attempt !== undefined && !starts.has(e.attempt))
      starts.set(e.attempt, Date.parse(e.at));
    if (!terminalSeq && isTerminalState(e.to)) [terminalSeq, terminalAttempt] = [e.seq, e.attempt];
  }
  const newest = Math.max(0, ...starts.keys());
  if (terminalAttempt !== undefined && terminalAttempt > 0 && terminalAttempt < newest)
    out.push(`terminal written by attempt ${terminalAttempt} after attempt ${newest} started`);
  return out;
}

export async function auditChaos(a: AuditInput): Promise<ChaosFigures> {
  const { db } = a.database;
  const examples: Record<string, string[]> = {};
  const note = (what: string, line: string) => {
    const list = (examples[what] ??= []);
    if (list.length < 10) list.push(line);
  };
  const jobs = await db.selectFrom('jobs').select(['id', 'state']).execute();
  const states = new Map(jobs.map((j) => [j.id, j.state as JobState]));
  const byState: Record<string, number> = {};
  let lost = 0;
  for (const id of a.ids) {
    const s = states.get(id) ?? 'missing';
    byState[s] = (byState[s] ?? 0) + 1;
    if (s === 'missing' || !isTerminalState(s as JobState)) {
      lost++;
      note('lost', `${id} ${s}`);
    }
  }

  const bills = new Map<string, number>();
  for (const r of a.ledger)
    if (r.billed)
      bills.set(unitKey(r.jobId, r.unitKey), (bills.get(unitKey(r.jobId, r.unitKey)) ?? 0) + 1);
  let doubleBilled = 0;
  let reviewRebilled = 0;
  for (const [key, n] of bills) {
    if (n <= 1) continue;
    doubleBilled++;
    if (states.get(key.split(' ')[0] as string) === 'needs_review') reviewRebilled++;
    note('doubleBilled', `${key} billed ${n}×`);
  }

  // Ghost rows: rows that claim a provider call the provider never billed.
  let ghostRows = 0;
  const ghost = (line: string) => (ghostRows++, note('ghostRows', line));
  const units = await db
    .selectFrom('units')
    .select(['job_id', 'unit_key', 'attempt_id', 'created_at'])
    .execute();
  const unbilled = (jobId: string, key: string) => {
    const unit = plannedUnit(key);
    return unit !== undefined && !bills.has(unitKey(jobId, unit));
  };
  for (const u of units)
    if (unbilled(u.job_id, u.unit_key)) ghost(`unit ${u.job_id} ${u.unit_key} never billed`);
  const calls = await db
    .selectFrom('provider_calls')
    .select(['job_id', 'unit_key', 'outcome', 'attempt_id', 'attempt', 'created_at'])
    .execute();
  for (const c of calls)
    if (c.outcome === 'succeeded' && !bills.has(unitKey(c.job_id, c.unit_key)))
      ghost(`call ${c.job_id} ${c.unit_key} succeeded, never billed`);
  const assets = await db
    .selectFrom('assets')
    .select(['final_key', 'job_id', 'unit_key', 'size', 'sha256', 'attempt_id', 'created_at'])
    .execute();
  for (const row of assets) {
    if (unbilled(row.job_id, row.unit_key)) ghost(`asset ${row.final_key} of a unit never billed`);
    const b = await readAll(a.blobs, row.final_key);
    if (!b) ghost(`asset ${row.final_key}: no blob`);
    else if (
      b.byteLength !== Number(row.size) ||
      createHash('sha256').update(b).digest('hex') !== row.sha256
    )
      ghost(`asset ${row.final_key}: blob differs`);
  }

  let orphanBlobs = 0;
  const finalKeys = new Set(assets.map((r) => r.final_key));
  for await (const key of a.blobs.list('')) {
    if (finalKeys.has(key)) continue;
    orphanBlobs++;
    note('orphanBlobs', key);
  }

  // Zombie writes: the events of each job, then rows stamped by an attempt that was superseded.
  const attemptOf = new Map(calls.map((c) => [c.attempt_id, Number(c.attempt)]));
  let zombieWritesLanded = 0;
  const zombie = (line: string) => (zombieWritesLanded++, note('zombieWritesLanded', line));
  const startsByJob = new Map<string, Map<number, number>>();
  const eventsOf = await eventsByJob(db);
  for (const id of a.ids) {
    const starts = new Map<number, number>();
    startsByJob.set(id, starts);
    for (const z of eventZombies(eventsOf.get(id) ?? [], starts)) zombie(`${id} ${z}`);
  }
  let rowsAfterTakeoverAdmitted = 0;
  const lateRow = (what: string, jobId: string, attemptId: string, createdAt: unknown) => {
    const n = attemptOf.get(attemptId);
    const next = n === undefined ? undefined : startsByJob.get(jobId)?.get(n + 1);
    if (next !== undefined && Date.parse(String(createdAt)) > next) {
      rowsAfterTakeoverAdmitted++;
      note(
        'rowsAfterTakeoverAdmitted',
        `${jobId} ${what} by attempt ${n} after attempt ${n! + 1} was admitted`,
      );
    }
  };
  for (const u of units) lateRow(`unit ${u.unit_key}`, u.job_id, u.attempt_id, u.created_at);
  for (const r of assets) lateRow(`asset ${r.unit_key}`, r.job_id, r.attempt_id, r.created_at);
  // A call recorded by a superseded attempt is a call a zombie was let send.
  for (const c of calls) lateRow(`call ${c.unit_key}`, c.job_id, c.attempt_id, c.created_at);

  return {
    submitted: a.ids.length,
    byState,
    lost,
    doubleBilled,
    reviewRebilled,
    orphanBlobs,
    ghostRows,
    zombieWritesLanded,
    rowsAfterTakeoverAdmitted,
    providerBills: a.ledger.filter((r) => r.billed).length,
    faults: a.faults,
    runMs: a.runMs,
    examples,
  };
}

/** The one table the soak prints; `broker` names the restarted server ('Redis', 'NATS'). */
export function formatChaosTable(f: ChaosFigures, broker: string): string {
  const rows: [string, string | number][] = [
    ['jobs submitted', f.submitted],
    ...Object.entries(f.byState)
      .sort()
      .map(([s, n]): [string, number] => [`  state: ${s}`, n]),
    ['lost (never terminal)', f.lost],
    ['double-billed units', f.doubleBilled],
    ['  of which needs_review re-billed', f.reviewRebilled],
    ['orphan blobs', f.orphanBlobs],
    ['ghost rows', f.ghostRows],
    ['zombie writes landed', f.zombieWritesLanded],
    ['  rows after a takeover was admitted (legal)', f.rowsAfterTakeoverAdmitted],
    ['provider bills', f.providerBills],
    ['faults: SIGKILL / SIGSTOP', `${f.faults.sigkills} / ${f.faults.sigstops}`],
    [
      `faults: ${broker} restarts / blackholes`,
      `${f.faults.serverRestarts} / ${f.faults.blackholes}`,
    ],
    [`re-dispatched after the ${broker} loss`, f.faults.redispatched],
    ['run time (s)', Math.round(f.runMs / 100) / 10],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  for (const [what, list] of Object.entries(f.examples))
    lines.push(`${what} e.g.:`, ...list.map((l) => `  ${l}`));
  return lines.join('\n');
}
