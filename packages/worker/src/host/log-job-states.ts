// One log line per stored job state change (running, succeeded, retried, dead-lettered …), with
// the job's id, kind, version, attempt and trace id: read from the events as they are stored,
// so a line says what the database holds, never what was only intended. Nothing is built when
// info lines are not written.

import { jobStateFields } from '@sluice/contracts';
import type { StoredEvent } from '@sluice/storage';
import type { AttemptJob } from '../attempt/attempt.js';
import type { WorkerLogger } from '../logger.js';

export function createJobStateLog(
  logger: WorkerLogger,
  /** The jobs this worker holds: a line names the attempt's version and trace. */
  held: { jobOf(jobId: string): AttemptJob | undefined },
): (events: readonly StoredEvent[]) => void {
  return (events) => {
    if (logger.isLevelEnabled?.('info') === false) return;
    for (const stored of events) {
      const e = stored.event;
      if (e.type !== 'state') continue;
      logger.info('job state', jobStateFields(e, stored.kind, held.jobOf(e.jobId)));
    }
  };
}
