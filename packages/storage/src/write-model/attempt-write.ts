// The one write of the worker's hot path: a job row moved under a fence, with its events (one
// row) and unit checkpoints, as a group across many jobs. Everything an attempt stores — its
// lazy start, its progress, its checkpoints, its outcome, and a start and outcome together for a
// job that finished before anything else was written — is an `AttemptWrite`.
//
// The fence pins the row exactly as the writer last knew it: epoch, last sequence number and
// state (and, for a reclaim, a lapsed lease). Every transition bumps `last_seq` and every new
// attempt bumps `epoch`, so any change made since — a cancel, a reclaim, a requeue — fails the
// fence and nothing of that write lands. Because the row is pinned, the writer knows the sequence
// numbers of its events and the attempt counter before it writes: nothing is read back.
//
// Dialects (`writeAttempts`): PostgreSQL runs ONE prepared statement per call (arrays in, CTEs
// for the events, outbox and units rows, each inserted only for rows the UPDATE moved); SQLite
// runs cached prepared statements per row inside ONE immediate transaction. Neither holds an
// interactive transaction open across a round trip, so the same write fits D1's atomic batch
// (attempt-write-d1.ts: each statement carries the fence, inserts before the UPDATE).

import type { JobError, JobEvent, JobState, JobWaiting } from '@sluice/contracts';
import type { SluiceDatabase } from '../database.js';
import { isoNow } from '../json.js';
import type { StoredEvent } from '../repos/events.js';
import { writeAttemptsPg } from './attempt-write-pg.js';
import { writeAttemptsD1 } from './attempt-write-d1.js';
import { writeAttemptsSqlite } from './attempt-write-sqlite.js';
import { assertWritable } from './write-columns.js';

/** What the row must still be for the write to apply. */
export interface AttemptFence {
  epoch: number;
  lastSeq: number;
  /** `scheduled`: a run that waited for the due time itself starts the job (`delaysInRun`). */
  state: 'scheduled' | 'queued' | 'running';
  /** With `running`: only once the holder's lease has passed (a reclaim). */
  leaseLapsed?: boolean | undefined;
}

/** A unit checkpoint stored with the write (first stored wins; fenced with the row). */
export interface UnitWrite {
  unitKey: string;
  result?: unknown;
  assetKey?: string | null | undefined;
}

export interface AttemptWrite {
  id: string;
  tenantId: string;
  kind: string;
  fence: AttemptFence;
  /** The row after the write. */
  state: JobState;
  epoch: number;
  attempts: number;
  attemptId: string | null;
  leaseUntil: string | null;
  leaseOwner: string | null;
  /** `undefined` keeps the stored value; `null` clears it. */
  output?: unknown;
  error?: JobError | null | undefined;
  reason?: string | null | undefined;
  runAfter?: string | null | undefined;
  /** Numbered from `fence.lastSeq + 1`, stored as one row; may be empty. */
  events: readonly JobEvent[];
  units?: readonly UnitWrite[] | undefined;
  /** Also (re)write the job's outbox row, due then (a delayed retry through the reconciler). */
  outboxDueAt?: string | undefined;
  /**
   * The limit holding the job (a limit hold's outcome); every other write clears it (`undefined`
   * and `null` both store null), so a job that starts no longer shows a stale wait.
   */
  waiting?: JobWaiting | null | undefined;
}

export interface AttemptWriteResult {
  /** Per write, in order: did the fence hold (and so everything of it land)? */
  applied: boolean[];
  /** The events of the applied writes, with their row ids (for publishing). */
  events: StoredEvent[];
}

export async function writeAttempts(
  database: SluiceDatabase,
  writes: readonly AttemptWrite[],
  now = Date.now(),
): Promise<AttemptWriteResult> {
  if (writes.length === 0) return { applied: [], events: [] };
  for (const w of writes) assertWritable(w);
  const at = isoNow(now);
  const native = database.native;
  switch (native.dialect) {
    case 'postgres':
      return writeAttemptsPg(native.pool, writes, at);
    case 'sqlite':
      return writeAttemptsSqlite(database, native.handle, writes, at);
    case 'd1':
      return writeAttemptsD1(native.d1, writes, at);
  }
}
