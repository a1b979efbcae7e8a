// `writeAttempts` on PostgreSQL: ONE named (prepared once per connection) statement per round,
// whatever the batch size: every column comes in as an array and `unnest` turns them into rows.
// The UPDATE moves the rows whose fence holds; the events, outbox and units inserts join on what
// it returned, so a fenced row writes nothing at all. No explicit transaction: one statement is
// atomic, and no row lock is held across a round trip.

import type pg from 'pg';
import { toJson } from '../json.js';
import type { StoredEvent } from '../repos/events.js';
import type { AttemptWrite, AttemptWriteResult } from './attempt-write.js';
import { rounds, toColumns, type WriteColumns } from './write-columns.js';

const COLUMNS: [keyof WriteColumns, string][] = [
  ['id', 'text'],
  ['ep', 'int'],
  ['seq0', 'int'],
  ['fromState', 'text'],
  ['leaseCheck', 'bool'],
  ['toState', 'text'],
  ['newEp', 'int'],
  ['newAtt', 'int'],
  ['aid', 'text'],
  ['lease', 'text'],
  ['owner', 'text'],
  ['hasOut', 'bool'],
  ['out', 'text'],
  ['hasErr', 'bool'],
  ['err', 'text'],
  ['hasRsn', 'bool'],
  ['rsn', 'text'],
  ['hasRa', 'bool'],
  ['ra', 'text'],
  ['fin', 'bool'],
  ['n', 'int'],
  ['tenant', 'text'],
  ['kind', 'text'],
  ['etype', 'text'],
  ['payload', 'text'],
  ['seqEnd', 'int'],
  ['outboxDue', 'text'],
];
const V = COLUMNS.map(([name]) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
const UNITS = 6;
const AT = `$${COLUMNS.length + UNITS + 1}`;

const unnestV = COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
const u0 = COLUMNS.length;

export const WRITE_ATTEMPTS_SQL = `
with v as (select * from unnest(${unnestV}) as v(${V.join(', ')})),
u as (
  update jobs j set
    state = v.to_state, epoch = v.new_ep, attempts = v.new_att, attempt_id = v.aid,
    lease_until = v.lease, lease_owner = v.owner, last_seq = v.seq0 + v.n,
    output = case when v.has_out then v.out::jsonb else j.output end,
    error = case when v.has_err then v.err::jsonb else j.error end,
    reason = case when v.has_rsn then v.rsn else j.reason end,
    run_after = case when v.has_ra then v.ra else j.run_after end,
    updated_at = ${AT}, finished_at = case when v.fin then ${AT} else j.finished_at end
  from v
  where j.id = v.id and j.epoch = v.ep and j.last_seq = v.seq0 and j.state = v.from_state
    and (not v.lease_check or j.lease_until is null or j.lease_until <= ${AT})
  returning j.id
),
e as (
  insert into job_events (job_id, tenant_id, kind, seq, seq_end, type, payload, created_at)
  select v.id, v.tenant, v.kind, v.seq0 + 1, v.seq_end, v.etype, v.payload::jsonb, ${AT}
  from v join u on u.id = v.id where v.n > 0
  returning id, job_id
),
o as (
  insert into outbox (job_id, due_at, created_at)
  select v.id, v.outbox_due, ${AT} from v join u on u.id = v.id where v.outbox_due is not null
  on conflict (job_id) do update set due_at = excluded.due_at
),
x as (
  insert into units (job_id, unit_key, result, asset_key, attempt_id, epoch, created_at)
  select x.job_id, x.unit_key, x.result::jsonb, x.asset_key, x.aid, x.ep, ${AT}
  from unnest($${u0 + 1}::text[], $${u0 + 2}::text[], $${u0 + 3}::text[], $${u0 + 4}::text[],
    $${u0 + 5}::text[], $${u0 + 6}::int[]) as x(job_id, unit_key, result, asset_key, aid, ep)
  join u on u.id = x.job_id
  on conflict (job_id, unit_key) do nothing
)
select u.id, e.id as event_id from u left join e on e.job_id = u.id`;

/** Bumped whenever the text changes: a name is bound to one text per connection. */
const STATEMENT_NAME = 'sluice_write_attempts_1';

function params(writes: readonly AttemptWrite[], at: string): unknown[] {
  const cols = writes.map(toColumns);
  const arrays = COLUMNS.map(([name]) => cols.map((c) => c[name]));
  const units = writes.flatMap((w) =>
    (w.units ?? []).map((u) => [
      w.id,
      u.unitKey,
      u.result === undefined ? null : toJson(u.result),
      u.assetKey ?? null,
      w.attemptId,
      w.epoch,
    ]),
  );
  const unitArrays = Array.from({ length: UNITS }, (_, k) => units.map((u) => u[k]));
  return [...arrays, ...unitArrays, at];
}

export async function writeAttemptsPg(
  pool: pg.Pool,
  writes: readonly AttemptWrite[],
  at: string,
): Promise<AttemptWriteResult> {
  const applied = new Array<boolean>(writes.length).fill(false);
  const events: StoredEvent[] = [];
  for (const round of rounds(writes)) {
    const batch = round.map((i) => writes[i] as AttemptWrite);
    // Rows in id order: two concurrent statements lock the rows they share in the same order.
    const order = batch.map((_, k) => k).sort((a, b) => (batch[a]!.id < batch[b]!.id ? -1 : 1));
    const sorted = order.map((k) => batch[k] as AttemptWrite);
    const result = await pool.query<{ id: string; event_id: string | number | null }>({
      name: STATEMENT_NAME,
      text: WRITE_ATTEMPTS_SQL,
      values: params(sorted, at),
    });
    const moved = new Map(result.rows.map((r) => [r.id, r.event_id]));
    order.forEach((k, pos) => {
      const w = sorted[pos] as AttemptWrite;
      if (!moved.has(w.id)) return;
      applied[round[k] as number] = true;
      const eventId = moved.get(w.id);
      if (eventId === null || eventId === undefined) return;
      for (const event of w.events)
        events.push({ id: Number(eventId), tenantId: w.tenantId, kind: w.kind, event });
    });
  }
  return { applied, events };
}
