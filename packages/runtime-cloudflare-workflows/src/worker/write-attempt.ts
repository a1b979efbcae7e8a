// One fenced write of a Workflow attempt, through the run's job store (job-store.ts: ONE D1
// batch, or the gateway's state callback; every statement carrying the fence). A refused write
// changes nothing and throws LEASE_LOST: the attempt no longer holds the job (cancelled, or
// another epoch), and nothing of it may land afterwards.

import { SluiceError } from '@sluice/contracts';
import {
  applyWritten,
  type Attempt,
  buildWrite,
  type FinishWrite,
  type WriteContext,
} from '@sluice/worker/platform';
import type { RunJobStore } from './job-store.js';

export async function writeOrFence(
  store: RunJobStore,
  attempt: Attempt,
  ctx: WriteContext,
  finish?: FinishWrite,
): Promise<void> {
  const built = buildWrite(attempt, { ...ctx, now: Date.now() }, finish);
  if ((await store.write(built.write)) === 'fenced') {
    throw new SluiceError('LEASE_LOST', `${attempt.job.id}: the row moved on; nothing was written`);
  }
  applyWritten(attempt, built);
}
