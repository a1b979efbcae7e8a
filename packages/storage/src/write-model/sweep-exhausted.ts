// Jobs the embedded queue can no longer start: running, their holder's lease lapsed (the worker
// died mid-attempt), and no attempt left (a claim is an attempt there, so a job that keeps
// killing its worker uses its budget up). The claim skips them; this sweep moves them to
// `dead_lettered` with MAX_ATTEMPTS, each fenced by the row it read, so a requeue can give them
// a fresh budget. Any embedded worker runs it on its heartbeat; racing sweeps write once.

import { transitionEvent } from '../repos/transition-event.js';
import type { SluiceDatabase } from '../database.js';
import type { StoredEvent } from '../repos/events.js';
import { isoNow } from '../json.js';
import { writeAttempts, type AttemptWrite } from './attempt-write.js';
import { d1All } from '../d1/d1-like.js';
import { prepared, withHandle } from './native-sqlite.js';

type Row = {
  id: string;
  tenant_id: string;
  kind: string;
  epoch: number | string;
  last_seq: number | string;
  attempts: number | string;
  attempt_id: string | null;
};

const SELECT = (now: string, limit: string) => `select id, tenant_id, kind, epoch, last_seq,
  attempts, attempt_id from jobs where state = 'running' and lease_until <= ${now}
  and attempts >= max_attempts order by lease_until limit ${limit}`;

/** Dead-letters up to `limit` exhausted jobs; returns the events it stored. */
export async function sweepExhausted(
  database: SluiceDatabase,
  now = Date.now(),
  limit = 100,
): Promise<StoredEvent[]> {
  const at = isoNow(now);
  const native = database.native;
  let rows: Row[];
  if (native.dialect === 'postgres') {
    rows = (
      await native.pool.query<Row>({
        name: 'sluice_exhausted_1',
        text: SELECT('$1', '$2'),
        values: [at, limit],
      })
    ).rows;
  } else if (native.dialect === 'd1') {
    rows = await d1All<Row>(native.d1, SELECT('?1', '?2'), at, limit);
  } else {
    const handle = native.handle;
    rows = await withHandle(
      database,
      () => prepared(handle, SELECT('?', '?')).all(at, limit) as Row[],
    );
  }
  if (rows.length === 0) return [];
  const error = {
    kind: 'sluice' as const,
    code: 'LEASE_LOST' as const,
    message:
      'the worker of its last attempt stopped before storing an outcome, and no attempt is left',
  };
  const writes: AttemptWrite[] = rows.map((r) => {
    const attempts = Number(r.attempts);
    const lastSeq = Number(r.last_seq);
    const details = { reason: 'MAX_ATTEMPTS', error };
    return {
      id: r.id,
      tenantId: r.tenant_id,
      kind: r.kind,
      fence: { epoch: Number(r.epoch), lastSeq, state: 'running', leaseLapsed: true },
      state: 'dead_lettered',
      epoch: Number(r.epoch),
      attempts,
      attemptId: r.attempt_id,
      leaseUntil: null,
      leaseOwner: null,
      reason: 'MAX_ATTEMPTS',
      error,
      events: [
        transitionEvent(r.id, lastSeq + 1, at, 'running', 'dead_lettered', attempts, details),
      ],
    };
  });
  return (await writeAttempts(database, writes, now)).events;
}
