// The body of one terminal transaction, for a whole burst of finished attempts: the row locks in
// id order, ONE fenced append of every attempt's still-queued events (storage
// `appendAttemptEventsMany`: one UPDATE reserving each job's sequence numbers, one multi-row
// insert), the transitions in bulk (`transitionJobs`: one compare-and-set UPDATE per kind of
// outcome, one event insert), the outbox rows of delayed retries, and one read of the jobs whose
// write did not apply. Each attempt is fenced on its own by (job, epoch): a zombie's events and
// transition change nothing, exactly as row by row.

import {
  appendAttemptEventsMany,
  getJobsByIds,
  lockJobs,
  transitionJobs,
  type AttemptEvent,
  type Db,
  type JobRow,
  type StoredEvent,
  type TransitionRequest,
} from '@sluice/storage';
import { addRetryOutbox } from './release-later.js';
import { seededBug } from './testing/seeded-bug.js';

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
  const written = new Array<TerminalWritten>(entries.length);
  const committed: StoredEvent[] = [];
  // Row locks in id order first: no deadlock with the renewal tick or another batch.
  await lockJobs(
    tx,
    entries.map((e) => e.request.id),
  );
  // Seeded bug: the attempt's last events are written after its terminal event.
  const eventsLast = seededBug('progress-after-terminal');
  const appendFor = (indexes: number[]) =>
    appendAttemptEventsMany(
      tx,
      indexes.map((i) => {
        const e = entries[i] as TerminalEntry;
        return { id: e.request.id, epoch: e.request.epoch, events: e.events };
      }),
      now,
    );
  const withEvents = entries.flatMap((e, i) => (e.events.length > 0 ? [i] : []));
  const fenced = new Set<number>();
  if (!eventsLast && withEvents.length > 0) {
    const appended = await appendFor(withEvents);
    withEvents.forEach((i, k) => {
      const stored = appended[k];
      if (stored) committed.push(...stored);
      else fenced.add(i); // the attempt no longer owns the job: write nothing of it
    });
  }
  const moving = entries.flatMap((_, i) => (fenced.has(i) ? [] : [i]));
  const results = await transitionJobs(
    tx,
    moving.map((i) => (entries[i] as TerminalEntry).request),
    now,
  );
  const transitionEvents: StoredEvent[] = [];
  const retries = new Map<number, string[]>();
  moving.forEach((i, k) => {
    const r = results[k];
    const entry = entries[i] as TerminalEntry;
    if (!r?.ok) {
      written[i] = { ok: false, job: r?.job };
      return;
    }
    written[i] = { ok: true, job: r.job };
    transitionEvents.push(r.event);
    const delay = entry.outboxDelayMs;
    if (delay !== undefined) retries.set(delay, [...(retries.get(delay) ?? []), r.job.id]);
  });
  committed.push(...transitionEvents);
  if (eventsLast) {
    const late = await appendFor(withEvents.filter((i) => written[i]?.ok));
    for (const stored of late) if (stored) committed.push(...stored);
  }
  for (const [delayMs, ids] of retries) await addRetryOutbox(tx, ids, delayMs, now);
  // Where did the ones that did not apply go? One read for all of them.
  const lost = entries.flatMap((e, i) =>
    fenced.has(i) || (written[i] && !written[i].ok && !written[i].job) ? [e.request.id] : [],
  );
  const rows = lost.length > 0 ? await getJobsByIds(tx, lost) : new Map<string, JobRow>();
  entries.forEach((e, i) => {
    if (fenced.has(i)) written[i] = { ok: false, job: rows.get(e.request.id) };
    else if (written[i] && !written[i].ok && !written[i].job)
      written[i] = { ok: false, job: rows.get(e.request.id) };
  });
  return { written, committed };
}
