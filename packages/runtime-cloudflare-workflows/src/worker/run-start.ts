// The run's `sluice:start` step: `queued` → `running` at a new epoch (the `running` event), one
// fenced write through the run's job store. A delayed job's run slept until its due time first
// (`sluice:due`) and starts it from `scheduled` (events `queued`, then `running`), fenced on
// `scheduled`: a cancel while it slept leaves the row `cancelled` and the run skips. Its attempt id is deterministic, so a re-run of the
// step after its write committed recognises the row as its own instead of starting again.

import { parseJobId, type Delivery, type MessagePointer } from '@sluice/contracts';
import { isoNow } from '@sluice/storage/d1';
import { createAttempt, type WriteContext } from '@sluice/worker/platform';
import type { RunJobStore } from './job-store.js';
import { writeOrFence } from './write-attempt.js';

export type Started =
  | { kind: 'running'; epoch: number; attempts: number; attemptId: string }
  | { kind: 'skip'; state: string };

/** Deterministic per job and attempt, so a re-run of the `start` step recognises its own write. */
export function workflowAttemptId(jobId: string, attempt: number): string {
  return `${parseJobId(jobId)?.token ?? 'x'}_a${attempt}`;
}

export async function startAttempt(
  store: RunJobStore,
  pointer: MessagePointer,
  context: WriteContext,
): Promise<Started> {
  const snap = await store.snapshot(pointer);
  if (!snap) return { kind: 'skip', state: 'missing' };
  // A re-run of this step after its write committed: the row is ours already.
  if (snap.state === 'running' && snap.attemptId === workflowAttemptId(snap.id, snap.attempts)) {
    return {
      kind: 'running',
      epoch: snap.epoch,
      attempts: snap.attempts,
      attemptId: snap.attemptId,
    };
  }
  if (snap.state !== 'queued' && snap.state !== 'scheduled') {
    return { kind: 'skip', state: snap.state };
  }
  const from = snap.state;
  const attemptId = workflowAttemptId(snap.id, snap.attempts + 1);
  const attempt = createAttempt({
    delivery: deliveryOf(pointer),
    job: { ...snap, epoch: snap.epoch + 1, attempts: snap.attempts + 1, attemptId },
    fence: { epoch: snap.epoch, lastSeq: snap.lastSeq, state: from },
    started: false,
    startFrom: from,
  });
  attempt.startedAt = isoNow();
  // Refused: someone moved the row between the read and the write; the step's retry reads again.
  await writeOrFence(store, attempt, context);
  return { kind: 'running', epoch: attempt.job.epoch, attempts: attempt.job.attempts, attemptId };
}

export function deliveryOf(pointer: MessagePointer): Delivery {
  return { id: pointer.jobId, pointer, transportDeliveries: 1 };
}
