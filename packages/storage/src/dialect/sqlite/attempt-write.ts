// `writeAttempts` on SQLite: prepared statements run per row inside ONE immediate transaction
// (SQLite has no array parameters, and in-process statements cost microseconds). A row whose
// fence fails writes nothing more: its events, outbox and units statements are skipped.

import type SQLite from 'better-sqlite3';
import type { Db } from '../../database.js';
import { toJson } from '../../json.js';
import type { StoredEvent } from '../../repos/event-rows.js';
import type { AttemptWrite, AttemptWriteResult } from '../../write-model/attempt-types.js';
import { bit, toColumns } from '../../write-model/write-columns.js';
import { immediately, prepared } from './native-sqlite.js';

const UPDATE = `update jobs set state = @toState, epoch = @newEp, attempts = @newAtt,
  attempt_id = @aid, lease_until = @lease, lease_owner = @owner, last_seq = @seq0 + @n,
  output = case when @hasOut then @out else output end,
  error = case when @hasErr then @err else error end,
  reason = case when @hasRsn then @rsn else reason end,
  run_after = case when @hasRa then @ra else run_after end,
  updated_at = @at, finished_at = case when @fin then @at else finished_at end, waiting = @wait
where id = @id and epoch = @ep and last_seq = @seq0 and state = @fromState
  and kind = @kind and tenant_id = @tenant
  and (@leaseCheck = 0 or lease_until is null or lease_until <= @at)`;
const EVENT = `insert into job_events (job_id, tenant_id, kind, seq, seq_end, type, payload, created_at)
  values (?, ?, ?, ?, ?, ?, ?, ?)`;
const OUTBOX = `insert into outbox (job_id, due_at, created_at) values (?, ?, ?)
  on conflict (job_id) do update set due_at = excluded.due_at`;
const UNIT = `insert into units (job_id, unit_key, result, asset_key, attempt_id, epoch, created_at)
  values (?, ?, ?, ?, ?, ?, ?) on conflict (job_id, unit_key) do nothing`;

export function writeAttemptsSqlite(
  handle: SQLite.Database,
  db: Db,
  writes: readonly AttemptWrite[],
  at: string,
): Promise<AttemptWriteResult> {
  const update = prepared(handle, UPDATE);
  const event = prepared(handle, EVENT);
  const outbox = prepared(handle, OUTBOX);
  const unit = prepared(handle, UNIT);
  return immediately(db, handle, () => {
    const applied: boolean[] = [];
    const events: StoredEvent[] = [];
    for (const w of writes) {
      const c = toColumns(w);
      const moved = update.run({
        id: c.id,
        ep: c.ep,
        seq0: c.seq0,
        fromState: c.fromState,
        leaseCheck: bit(c.leaseCheck),
        toState: c.toState,
        newEp: c.newEp,
        newAtt: c.newAtt,
        aid: c.aid,
        lease: c.lease,
        owner: c.owner,
        hasOut: bit(c.hasOut),
        out: c.out,
        hasErr: bit(c.hasErr),
        err: c.err,
        hasRsn: bit(c.hasRsn),
        rsn: c.rsn,
        hasRa: bit(c.hasRa),
        ra: c.ra,
        fin: bit(c.fin),
        n: c.n,
        wait: c.wait,
        kind: c.kind,
        tenant: c.tenant,
        at,
      });
      applied.push(moved.changes > 0);
      if (moved.changes === 0) continue;
      if (c.n > 0) {
        const row = event.run(c.id, c.tenant, c.kind, c.seq0 + 1, c.seqEnd, c.etype, c.payload, at);
        const id = Number(row.lastInsertRowid);
        for (const e of w.events) events.push({ id, tenantId: w.tenantId, kind: w.kind, event: e });
      }
      if (c.outboxDue !== null) outbox.run(c.id, c.outboxDue, at);
      for (const u of w.units ?? []) {
        const result = u.result === undefined ? null : toJson(u.result);
        unit.run(w.id, u.unitKey, result, u.assetKey ?? null, w.attemptId, w.epoch, at);
      }
    }
    return { applied, events };
  });
}
