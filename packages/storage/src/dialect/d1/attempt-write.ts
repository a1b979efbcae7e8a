// `writeAttempts` on D1: ONE atomic `batch()` for the whole call, no read beforehand. D1 has no
// interactive transaction in which to look at the UPDATE's result before the inserts, so every
// statement of a write carries the same fence as its UPDATE (`exists (… the row as the writer
// knew it …)`) and the inserts come BEFORE the UPDATE: inside the batch nothing interleaves, so
// all of a write's statements see the same row and either all of them land or none does. A
// fenced write therefore changes no row at all (attempt-write.case.ts counts them), without
// failing the batch for the other jobs in it; several writes of one job run in order, each
// fenced by the row its predecessor left, as on SQLite.
//
// Why not a guard statement that aborts the batch: one fenced job would roll back every other
// job's write in the call, and an error cannot say which job it was.
import { toJson } from '../../json.js';
import type { StoredEvent } from '../../repos/event-rows.js';
import type { AttemptWrite, AttemptWriteResult } from '../../write-model/attempt-types.js';
import { bit, toColumns } from '../../write-model/write-columns.js';
import type { D1Like, D1StatementLike } from './d1-like.js';

// ?1 id, ?2 epoch, ?3 last_seq, ?4 state, ?5 lease check, ?6 now: shared by every statement.
// The row's kind and tenant are fenced too (an attempt started from a pointer's snapshot never
// read the row): each statement binds them after its own parameters, at `?k` and `?k+1`.
const FENCE = (k: number) => `exists (select 1 from jobs where id = ?1 and epoch = ?2
  and last_seq = ?3 and state = ?4 and (?5 = 0 or lease_until is null or lease_until <= ?6)
  and kind = ?${k} and tenant_id = ?${k + 1})`;

const EVENT = `insert into job_events (job_id, tenant_id, kind, seq, seq_end, type, payload, created_at)
  select ?1, ?7, ?8, ?3 + 1, ?9, ?10, ?11, ?6 where ${FENCE(12)} returning id`;

const OUTBOX = `insert into outbox (job_id, due_at, created_at) select ?1, ?7, ?6 where ${FENCE(8)}
  on conflict (job_id) do update set due_at = excluded.due_at`;

// Units travel as one JSON array of {k, r, a} (r already JSON text): one statement per write.
const UNITS = `insert into units (job_id, unit_key, result, asset_key, attempt_id, epoch, created_at)
  select ?1, u.value ->> 'k', u.value ->> 'r', u.value ->> 'a', ?7, ?8, ?6
  from json_each(?9) u where ${FENCE(10)} on conflict (job_id, unit_key) do nothing`;

const UPDATE = `update jobs set state = ?7, epoch = ?8, attempts = ?9, attempt_id = ?10,
  lease_until = ?11, lease_owner = ?12, last_seq = ?3 + ?13,
  output = case when ?14 then ?15 else output end,
  error = case when ?16 then ?17 else error end,
  reason = case when ?18 then ?19 else reason end,
  run_after = case when ?20 then ?21 else run_after end,
  updated_at = ?6, finished_at = case when ?22 then ?6 else finished_at end
where id = ?1 and epoch = ?2 and last_seq = ?3 and state = ?4
  and (?5 = 0 or lease_until is null or lease_until <= ?6) and kind = ?23 and tenant_id = ?24
returning id`;

type Slot = { write: number; kind: 'event' | 'update' };

export async function writeAttemptsD1(
  d1: D1Like,
  writes: readonly AttemptWrite[],
  at: string,
): Promise<AttemptWriteResult> {
  const statements: D1StatementLike[] = [];
  const slots: Slot[] = [];
  const push = (slot: Slot | undefined, sql: string, values: unknown[]) => {
    statements.push(d1.prepare(sql).bind(...values));
    slots.push(slot ?? { write: -1, kind: 'event' });
  };
  writes.forEach((w, i) => {
    const c = toColumns(w);
    const fence = [c.id, c.ep, c.seq0, c.fromState, bit(c.leaseCheck), at];
    const identity = [c.kind, c.tenant];
    if (c.n > 0)
      push({ write: i, kind: 'event' }, EVENT, [
        ...fence,
        c.tenant,
        c.kind,
        c.seqEnd,
        c.etype,
        c.payload,
        ...identity,
      ]);
    if (c.outboxDue !== null) push(undefined, OUTBOX, [...fence, c.outboxDue, ...identity]);
    if (w.units && w.units.length > 0) {
      const units = w.units.map((u) => ({
        k: u.unitKey,
        r: u.result === undefined ? null : toJson(u.result),
        a: u.assetKey ?? null,
      }));
      push(undefined, UNITS, [...fence, w.attemptId, w.epoch, JSON.stringify(units), ...identity]);
    }
    push({ write: i, kind: 'update' }, UPDATE, [
      ...fence,
      c.toState,
      c.newEp,
      c.newAtt,
      c.aid,
      c.lease,
      c.owner,
      c.n,
      bit(c.hasOut),
      c.out,
      bit(c.hasErr),
      c.err,
      bit(c.hasRsn),
      c.rsn,
      bit(c.hasRa),
      c.ra,
      bit(c.fin),
      ...identity,
    ]);
  });
  const results = await d1.batch<{ id: number | string }>(statements);
  const applied = new Array<boolean>(writes.length).fill(false);
  const eventIds = new Map<number, number>();
  results.forEach((r, s) => {
    const slot = slots[s] as Slot;
    if (slot.write < 0 || r.results.length === 0) return;
    if (slot.kind === 'update') applied[slot.write] = true;
    else eventIds.set(slot.write, Number(r.results[0]?.id));
  });
  const events: StoredEvent[] = [];
  writes.forEach((w, i) => {
    const id = eventIds.get(i);
    if (!applied[i] || id === undefined) return;
    for (const event of w.events) events.push({ id, tenantId: w.tenantId, kind: w.kind, event });
  });
  return { applied, events };
}
