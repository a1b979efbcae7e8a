// What a hook knows about one job, folded from its stored events in sequence order. Pure, so the
// hooks and their tests share one definition of "the state after these events".

import {
  isTerminalState,
  type AnyJobDefinition,
  type JobError,
  type JobState,
  type inferJobOutput,
  type inferJobProgress,
} from '@sluice/contracts/wire';
import type { JobWatchEvent, UntypedJob } from '@sluice/client';

export interface JobSnapshot<J extends AnyJobDefinition = UntypedJob> {
  readonly id: string;
  /** Undefined until the first event (or the job's view) arrived. */
  readonly state: JobState | undefined;
  /** The newest progress report, typed by the job's progress schema. */
  readonly progress: inferJobProgress<J> | undefined;
  /** Every event so far, in sequence order, without gaps or repeats. */
  readonly events: readonly JobWatchEvent<J>[];
  /** The highest sequence number folded in (the resume point after a reconnect). */
  readonly lastSeq: number;
  /** Units finished in the current attempt chain, by key (reused checkpoints included). */
  readonly unitsDone: readonly string[];
  /** Why the job stopped where it stopped (review reason, dead-letter reason). */
  readonly reason: string | undefined;
  /** The stored error of a failed, parked or dead-lettered job. */
  readonly jobError: JobError | undefined;
  /** The typed output once the job succeeded. */
  readonly result: inferJobOutput<J> | undefined;
  /** A typed client error: the job ended without an output, or the watch itself failed. */
  readonly error: Error | undefined;
  /** True once the job is in a state only a person can move it out of, or a final one. */
  readonly settled: boolean;
  /** The shared limit a running job waits for (`{ reason: 'rate_limited', by: 'provider:x' }`). */
  readonly waiting: { reason: 'rate_limited' | 'concurrency_limited'; by: string } | undefined;
}

export function emptySnapshot<J extends AnyJobDefinition>(id: string): JobSnapshot<J> {
  return {
    id,
    state: undefined,
    progress: undefined,
    events: [],
    lastSeq: 0,
    unitsDone: [],
    reason: undefined,
    jobError: undefined,
    result: undefined,
    error: undefined,
    settled: false,
    waiting: undefined,
  };
}

/** Folds one event in. Events at or below `lastSeq` are replays and change nothing. */
export function foldEvent<J extends AnyJobDefinition>(
  snap: JobSnapshot<J>,
  event: JobWatchEvent<J>,
): JobSnapshot<J> {
  if (event.seq <= snap.lastSeq) return snap;
  const next = { ...snap, events: [...snap.events, event], lastSeq: event.seq };
  switch (event.type) {
    case 'waiting':
      return { ...next, waiting: { reason: event.reason, by: event.by } };
    case 'progress':
      return { ...next, waiting: undefined, progress: event.data as inferJobProgress<J> };
    case 'unit_done':
      return snap.unitsDone.includes(event.unitKey)
        ? { ...next, waiting: undefined }
        : { ...next, waiting: undefined, unitsDone: [...snap.unitsDone, event.unitKey] };
    case 'state':
    case 'needs_review':
    case 'dead_letter': {
      const reason = 'reason' in event ? event.reason : undefined;
      const leftPark = event.to === 'queued' || event.to === 'running';
      return {
        ...next,
        waiting: undefined,
        state: event.to,
        reason: reason ?? (leftPark ? undefined : snap.reason),
        jobError: event.error ?? (leftPark ? undefined : snap.jobError),
        // A requeued job starts over: an earlier settle no longer holds.
        error: leftPark ? undefined : snap.error,
        settled: isTerminalState(event.to),
      };
    }
  }
}
