// Jobs the embedded queue can no longer start: running, their holder's lease lapsed (the worker
// died mid-attempt), and no attempt left (a claim is an attempt there, so a job that keeps
// killing its worker uses its budget up). The claim skips them; this sweep moves them to
// `dead_lettered` with MAX_ATTEMPTS, each fenced by the row it read, so a requeue can give them
// a fresh budget. Any embedded worker runs it on its heartbeat; racing sweeps write once.

import type { SluiceDatabase } from '../database.js';
import { isoNow } from '../json.js';
import type { StoredEvent } from '../repos/event-rows.js';
import { transitionEvent } from '../repos/transition-event.js';
import type { AttemptWrite } from './attempt-types.js';
import { writeAttempts } from './attempt-write.js';

/** The read of the sweep (`StorageDialect.exhaustedJobs`), in each dialect's parameters. */
export const exhaustedJobsSql = (
  now: string,
  limit: string,
) => `select id, tenant_id, kind, epoch, last_seq,
  attempts, attempt_id from jobs where state = 'running' and lease_until <= ${now}
  and attempts >= max_attempts order by lease_until limit ${limit}`;

/** Dead-letters up to `limit` exhausted jobs; returns the events it stored. */
export async function sweepExhausted(
  database: SluiceDatabase,
  now = Date.now(),
  limit = 100,
): Promise<StoredEvent[]> {
  const at = isoNow(now);
  const rows = await database.dialect.exhaustedJobs(at, limit);
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
