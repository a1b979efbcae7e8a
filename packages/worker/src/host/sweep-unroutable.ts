// The grace-period sweep for versions nobody serves: a job queued on a version of a kind that no
// live worker serves, while some version of that kind IS served, is dead-lettered with
// VERSION_NOT_ROUTABLE once it has waited longer than the grace period. Never a fallback to
// another version, never a job stranded forever. Several workers may sweep at once: every
// transition is a compare-and-set from `queued` at the epoch just read.

import {
  getJobsByIds,
  isoNow,
  queuedBefore,
  queuedVersions,
  servedVersions as storedServedVersions,
  transitionJob,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';

export interface SweepOptions {
  database: SluiceDatabase;
  /** Kinds to look at (the worker's registered kinds). */
  kinds: readonly string[];
  graceMs: number;
  /** Versions of a kind some live worker serves (default: the served-versions table). */
  servedVersions?: ((kind: string) => Promise<readonly string[]>) | undefined;
  /** Most jobs dead-lettered per (kind, version) per sweep (default 100). */
  limit?: number;
  now?: number;
  /** The dead-letter events committed (runtimes that carry events publish them). */
  onStored?: ((events: StoredEvent[]) => void) | undefined;
}

/** Returns the ids it dead-lettered. */
export async function sweepUnroutable(opts: SweepOptions): Promise<string[]> {
  const { database } = opts;
  const db = database.db;
  const now = opts.now ?? Date.now();
  const before = isoNow(now - opts.graceMs);
  const served = opts.servedVersions ?? ((kind: string) => storedServedVersions(db, kind, now));
  const candidates: { id: string; detail: string }[] = [];
  for (const kind of opts.kinds) {
    const live = await served(kind);
    if (live.length === 0) continue;
    for (const version of await queuedVersions(db, kind)) {
      if (live.includes(version)) continue;
      const ids = await queuedBefore(db, kind, version, before, opts.limit ?? 100);
      const detail = `no live worker serves ${kind} ${version} (served: ${live.join(', ')}) after ${opts.graceMs} ms`;
      for (const id of ids) candidates.push({ id, detail });
    }
  }
  if (candidates.length === 0) return [];
  const rows = await getJobsByIds(
    db,
    candidates.map((c) => c.id),
  );
  const committed: StoredEvent[] = [];
  const swept = await database.transaction(async (tx) => {
    committed.length = 0;
    const done: string[] = [];
    for (const c of candidates) {
      const row = rows.get(c.id);
      if (row?.state !== 'queued') continue;
      const r = await transitionJob(
        tx,
        {
          id: c.id,
          event: 'dead_letter',
          epoch: row.epoch,
          reason: 'VERSION_NOT_ROUTABLE',
          detail: c.detail,
        },
        now,
      );
      if (r.ok) {
        done.push(c.id);
        committed.push(r.event);
      }
    }
    return done;
  });
  opts.onStored?.(committed);
  return swept;
}
