// The records of the attempt write (attempt-write.ts), shared by every dialect's statements
// (dialect/*/attempt-write.ts) and by the write's column mapping (write-columns.ts).

import type { JobError, JobEvent, JobState, JobWaiting } from '@sluice/contracts';
import type { StoredEvent } from '../repos/event-rows.js';

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
