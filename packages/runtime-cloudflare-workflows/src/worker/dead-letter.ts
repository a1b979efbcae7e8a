// Dead-lettering a job that must not run (its version has no Workflow here, or its attempt
// budget is spent): `queued` → `dead_lettered` with its reason in the run's job store (D1, or the
// Node gateway that dispatched it), fenced by the epoch read,
// then its message on the DLQ queue. A job no longer queued is left alone; the message goes out
// either way, so an operator sees every dead letter.

import { SluiceError, type MessagePointer } from '@sluice/contracts';
import type { RunJobStore } from './job-store.js';
import type { QueueLike } from '../platform.js';

/** What a dead-lettered job's message on the DLQ queue says. */
export interface DeadLetterMessage {
  jobId: string;
  kind: string | null;
  version: string | null;
  tenantId: string | null;
  reason: 'VERSION_NOT_ROUTABLE' | 'MAX_ATTEMPTS';
  detail: string;
}

export function pointerFields(p: MessagePointer) {
  return { jobId: p.jobId, kind: p.kind, version: p.version, tenantId: p.tenantId };
}

/**
 * A job that must not run here: `queued` → `dead_lettered` with its reason (fenced by the epoch
 * read), then its message on the dead-letter queue. A job no longer queued is left alone.
 */
export async function deadLetter(
  deps: { store: RunJobStore; deadLetters?: QueueLike<DeadLetterMessage> | undefined },
  pointer: MessagePointer,
  reason: DeadLetterMessage['reason'],
  detail: string,
): Promise<boolean> {
  const snap = await deps.store.snapshot(pointer);
  let moved = false;
  if (snap?.state === 'queued') {
    moved = await deps.store.deadLetter(pointer, snap.epoch, reason, detail);
  }
  if (!deps.deadLetters) {
    throw new SluiceError('INVALID_CONFIG', 'no dead-letter queue binding to send to');
  }
  await deps.deadLetters.send({ ...pointerFields(pointer), reason, detail });
  return moved;
}
