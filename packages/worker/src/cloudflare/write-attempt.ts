// One fenced write of a Workflow attempt (storage `writeAttempts`: ONE D1 batch, every statement
// carrying the fence). A refused write changes nothing and throws LEASE_LOST: the attempt no
// longer holds the job (cancelled, or another epoch), and nothing of it may land afterwards.

import { SluiceError } from '@sluice/contracts';
import { writeAttempts, type SluiceDatabase } from '@sluice/storage/d1';
import type { Attempt } from '../attempt/attempt.js';
import {
  applyWritten,
  buildWrite,
  type FinishWrite,
  type WriteContext,
} from '../writers/build-write.js';

export async function writeOrFence(
  database: SluiceDatabase,
  attempt: Attempt,
  ctx: WriteContext,
  finish?: FinishWrite,
): Promise<void> {
  const built = buildWrite(attempt, { ...ctx, now: Date.now() }, finish);
  const result = await writeAttempts(database, [built.write]);
  if (!result.applied[0]) {
    throw new SluiceError('LEASE_LOST', `${attempt.job.id}: the row moved on; nothing was written`);
  }
  applyWritten(attempt, built);
}
