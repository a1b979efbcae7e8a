// One attempt as the host tracks it: its delivery, the job it runs (with the epoch, attempt
// number and attempt id it runs as), where the row stands in the database (`fence`), what it
// has not written yet (`pending`), its abort controller and its place in the lifecycle.
//
// Lazy start: an attempt admitted from a queued job has written nothing. The row is still
// `queued` at the epoch the admission read; the attempt already knows the epoch, attempt number
// and attempt id it will write. Its first write (a provider call's ledger row, an asset, a paid
// unit's checkpoint, the start timer, or its outcome) moves the row to `running` under that
// fence, with the `running` event first. A job that ends before any of these is started and
// finished by ONE write. Runtimes whose claim is the start (the embedded queue) hand over
// attempts already `started`, with only the `running` event left to write.

import { SluiceError, type Delivery, type JobState, type JobWaiting } from '@sluice/contracts';
import type { AttemptEvent, AttemptFence, UnitCheckpoint, UnitWrite } from '@sluice/storage';
import type { AbortCause } from './decide-outcome.js';

/** The job as the attempt runs it: identity, input and the counters this attempt writes. */
export interface AttemptJob {
  readonly id: string;
  readonly tenantId: string;
  readonly kind: string;
  readonly version: string;
  readonly input: unknown;
  readonly fileIds: readonly string[];
  readonly maxAttempts: number;
  /** This attempt's epoch (the fencing token of every write it makes). */
  readonly epoch: number;
  /** This attempt's number, counted in the database from 1. */
  readonly attempts: number;
  readonly attemptId: string;
  /** When the job was dispatched or became due again (`run_after`, else `created_at`). */
  readonly dueAt?: string | undefined;
  /** W3C `traceparent` the job was submitted under (the attempt's span continues it). */
  readonly traceContext?: string | null | undefined;
  /** The API key that submitted the job (per-key start limits). */
  readonly apiKeyId?: string | null | undefined;
  /** The limit that held the job before this attempt, if any (its `since` carries over). */
  readonly waiting?: JobWaiting | null | undefined;
}

/** An event waiting to be written, with the time it happened. */
export type PendingEvent = AttemptEvent & { at: string };

export interface Attempt<D extends Delivery = Delivery> {
  readonly delivery: D;
  readonly job: AttemptJob;
  /** The job's checkpoints as loaded with its read batch (retried jobs only). */
  readonly checkpoints?: Promise<ReadonlyMap<string, UnitCheckpoint>> | undefined;
  readonly controller: AbortController;
  /** Where the row stands: the next write applies only if it is still exactly this. */
  fence: AttemptFence;
  /** The row is `running` at this attempt's epoch. */
  started: boolean;
  /** The state the `running` event leaves (`queued`, or `running` for a reclaim). */
  readonly startFrom: JobState;
  /** The `running` event is stored. */
  runningEventStored: boolean;
  /** When the handler started (the `running` event's time). */
  startedAt: string;
  /** The same instant in epoch milliseconds (for the duration histogram). */
  startedMs: number;
  /** Written by the next write of this attempt, in order. */
  readonly pending: { events: PendingEvent[]; units: UnitWrite[] };
  /**
   * Events and checkpoints are written behind as they come (instead of riding with the outcome):
   * set once the attempt has run for the start delay, or made a write it had to wait for.
   */
  writeBehind: boolean;
  /** A write of this attempt was refused by its fence: it no longer holds the job. */
  fenced: boolean;
  /** Set when fenced: settles once the host knows why (cancelled, or another attempt's job). */
  fenceSettled?: Promise<void> | undefined;
  /** Set once, by the first abort: it decides the outcome over anything the job code threw. */
  cause: AbortCause | undefined;
  /** `waiting` for a slot, `running` its handler, `finishing` once the outcome is being stored. */
  phase: 'waiting' | 'running' | 'finishing';
  /** Last time the transport confirmed the claim. */
  lastRenewedAt: number;
}

function abortError(cause: AbortCause): SluiceError {
  switch (cause) {
    case 'cancelled':
      return new SluiceError('JOB_CANCELLED', 'the job was cancelled');
    case 'lease_lost':
      return new SluiceError('LEASE_LOST', 'this attempt no longer holds the job');
    case 'drain':
      return new SluiceError('UNAVAILABLE', 'the worker is shutting down');
  }
}

/** Aborts the attempt's signal; the first cause sticks. */
export function abortAttempt(attempt: Attempt, cause: AbortCause): void {
  if (attempt.cause) return;
  attempt.cause = cause;
  attempt.controller.abort(abortError(cause));
}

/** Something the attempt has not written yet. */
export function hasPending(attempt: Attempt): boolean {
  return (
    !attempt.started ||
    !attempt.runningEventStored ||
    attempt.pending.events.length > 0 ||
    attempt.pending.units.length > 0
  );
}

export interface NewAttempt<D extends Delivery> {
  delivery: D;
  job: AttemptJob;
  fence: AttemptFence;
  started: boolean;
  startFrom: JobState;
  checkpoints?: Promise<ReadonlyMap<string, UnitCheckpoint>> | undefined;
}

/**
 * One class for every attempt, so they all share one shape (V8 keeps a monomorphic hidden class;
 * spreading `NewAttempt` into a literal built a fresh one per call site and showed per job).
 */
class AttemptRecord<D extends Delivery> implements Attempt<D> {
  readonly delivery: D;
  readonly job: AttemptJob;
  checkpoints: Promise<ReadonlyMap<string, UnitCheckpoint>> | undefined;
  readonly controller = new AbortController();
  fence: AttemptFence;
  started: boolean;
  readonly startFrom: JobState;
  runningEventStored = false;
  startedAt = ''; // set when its handler starts
  startedMs = 0;
  readonly pending: { events: PendingEvent[]; units: UnitWrite[] } = { events: [], units: [] };
  writeBehind = false;
  fenced = false;
  fenceSettled: Promise<void> | undefined = undefined;
  cause: AbortCause | undefined = undefined;
  phase: 'waiting' | 'running' | 'finishing' = 'waiting';
  lastRenewedAt = Date.now();

  constructor(a: NewAttempt<D>) {
    this.delivery = a.delivery;
    this.job = a.job;
    this.checkpoints = a.checkpoints;
    this.fence = a.fence;
    this.started = a.started;
    this.startFrom = a.startFrom;
  }
}

export function createAttempt<D extends Delivery>(a: NewAttempt<D>): Attempt<D> {
  return new AttemptRecord(a);
}
