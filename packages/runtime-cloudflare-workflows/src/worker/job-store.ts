// Where a Workflow run reads and fences its job: a narrow seam with two adapters side by side.
// - D1 (`d1JobStore`): the job was accepted by the Workers gateway, its row is in D1.
// - the gateway (`gateway-job-store.ts`): the job was accepted by a Node gateway (REST
//   dispatcher); its row is in that gateway's database, reached over the signed callbacks, and
//   applied there by the same fenced repository functions.
// Either way a refused write changes nothing and answers 'fenced'; the run then ends as
// NonRetryable, whichever store refused it.

import type { MessagePointer } from '@sluice/contracts';
import {
  loadSnapshots,
  transitionJob,
  writeAttempts,
  type AttemptWrite,
  type JobSnapshot,
  type SluiceDatabase,
} from '@sluice/storage/d1';
import { type CallLedger, databaseLedger } from '@sluice/worker/platform';
import type { DeadLetterMessage } from './dead-letter.js';

export interface RunJobStore {
  /** The job row now (a replay reads it again; a cancelled row stops the run). */
  snapshot(pointer: MessagePointer): Promise<JobSnapshot | undefined>;
  /** One fenced attempt write: start, events, unit checkpoints, the terminal outcome. */
  write(write: AttemptWrite): Promise<'applied' | 'fenced'>;
  /** `queued` → `dead_lettered`, fenced by `epoch`; false when the row was not there to move. */
  deadLetter(
    pointer: MessagePointer,
    epoch: number,
    reason: DeadLetterMessage['reason'],
    detail: string,
  ): Promise<boolean>;
  /** The provider ledger: its row lands here before a request leaves. */
  ledger: CallLedger;
  /**
   * The database of the asset and file rows, when the store has one next to the blob store
   * (D1). Absent: the run's assets and job files are refused (they are not carried over the
   * gateway's callbacks).
   */
  database?: SluiceDatabase | undefined;
}

export function d1JobStore(database: SluiceDatabase): RunJobStore {
  return {
    database,
    ledger: databaseLedger(database),
    async snapshot(pointer) {
      return (await loadSnapshots(database, [pointer.jobId])).get(pointer.jobId);
    },
    async write(write) {
      const result = await writeAttempts(database, [write]);
      return result.applied[0] ? 'applied' : 'fenced';
    },
    async deadLetter(pointer, epoch, reason, detail) {
      const r = await transitionJob(database.db, {
        id: pointer.jobId,
        event: 'dead_letter',
        epoch,
        reason,
        detail,
      });
      return r.ok;
    },
  };
}
