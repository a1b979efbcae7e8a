// The body of one terminal transaction, for a whole burst of finished attempts: storage
// `finishAttempts` (row locks in id order, inside its UPDATE when there is one; per kind of outcome ONE compare-and-set UPDATE that
// also reserves the sequence numbers of each attempt's still-queued events, then ONE multi-row
// insert of all their events and transition events), the outbox rows of delayed retries, and
// one read of the jobs whose write did not apply. Each attempt is fenced on its own by (job,
// epoch): a zombie's events and transition change nothing, exactly as row by row.

import {
  appendAttemptEventsMany,
  finishAttempts,
  getJobsByIds,
  type AttemptEvent,
  type Db,
  type JobRow,
  type StoredEvent,
  type TransitionRequest,
} from '@sluice/storage';
import { addRetryOutbox } from '../host/release-later.js';
import { seededBug } from '../testing/seeded-bug.js';

export interface TerminalEntry {
  request: TransitionRequest & { epoch: number };
  /** Events the attempt queued that are not stored yet: written before the transition. */
  events: readonly AttemptEvent[];
  /** A delayed retry that comes back through an outbox row (runtimes with `needsOutbox`). */
  outboxDelayMs?: number | undefined;
}

export interface TerminalWritten {
  ok: boolean;
  /** The row as stored (ok), or as found when the write did not apply (undefined: gone). */
  job: JobRow | undefined;
}

export async function writeTerminalBatch(
  tx: Db,
  entries: readonly TerminalEntry[],
  now: number,
): Promise<{ written: TerminalWritten[]; committed: StoredEvent[] }> {
  // `finishAttempts` takes the row locks in id order (no deadlock with the renewal tick or
  // another batch); the rows this transaction touches after it are already locked by then.
  // Seeded bug: the attempt's last events are written after its terminal event.
  const eventsLast = seededBug('progress-after-terminal');
  const finished = await finishAttempts(
    tx,
    entries.map((e) => ({ request: e.request, events: eventsLast ? [] : e.events })),
    now,
  );
  const committed = finished.flatMap((r) => (r.ok ? r.events : []));
  if (eventsLast) {
    const late = entries.flatMap((e, i) => (finished[i]?.ok ? [e] : []));
    const stored = await appendAttemptEventsMany(
      tx,
      late.map((e) => ({ id: e.request.id, epoch: e.request.epoch, events: e.events })),
      now,
    );
    for (const s of stored) if (s) committed.push(...s);
  }
  const retries = new Map<number, string[]>();
  entries.forEach((e, i) => {
    const delay = e.outboxDelayMs;
    if (finished[i]?.ok && delay !== undefined)
      retries.set(delay, [...(retries.get(delay) ?? []), e.request.id]);
  });
  for (const [delayMs, ids] of retries) await addRetryOutbox(tx, ids, delayMs, now);
  // Where did the ones that did not apply go? One read for all of them.
  const lost = entries.flatMap((e, i) => (finished[i]?.ok ? [] : [e.request.id]));
  const rows = lost.length > 0 ? await getJobsByIds(tx, lost) : new Map<string, JobRow>();
  const written = entries.map((e, i): TerminalWritten => {
    const r = finished[i];
    return r?.ok ? { ok: true, job: r.job } : { ok: false, job: rows.get(e.request.id) };
  });
  return { written, committed };
}
