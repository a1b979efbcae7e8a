// One running attempt as the host tracks it: its delivery, the job row as the start transition
// left it (epoch, attempt number), its abort controller and its ordered event queue.

import { SluiceError, type Delivery } from '@sluice/contracts';
import type { JobRow, UnitCheckpoint } from '@sluice/storage';
import type { AbortCause } from './decide-outcome.js';
import type { AttemptEvents } from '../writers/event-writer.js';

export interface Attempt<D extends Delivery = Delivery> {
  readonly delivery: D;
  readonly job: JobRow;
  /** The job's checkpoints as loaded with its read batch (retried jobs only). */
  readonly checkpoints?: Promise<ReadonlyMap<string, UnitCheckpoint>> | undefined;
  readonly controller: AbortController;
  readonly events: AttemptEvents;
  /** Set once, by the first abort: it decides the outcome over anything the job code threw. */
  cause: AbortCause | undefined;
  /** `finishing` once the handler returned and the terminal write is queued. */
  phase: 'running' | 'finishing';
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
