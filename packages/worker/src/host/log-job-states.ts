// The worker's job state log, read from the events as they are stored, so a line says what the
// database holds, never what was only intended:
//
// - `debug`: one `job state` line per stored change (running, succeeded, retried, dead-lettered
//   …) with the job's id, kind, version, attempt and trace id — every change, for an operator
//   following one job;
// - `info`: one `job states` summary line per period (default 10 s) while changes happen:
//   how many changes the worker stored, counted by the state entered. Nothing when idle.
//
// Why not a line per change at `info`: a busy worker stored two per job (its `running` and its
// end), and formatting and writing them was ~4 % of a Streams worker's CPU in the no-op drain
// (15–22 % before the lines were written in bursts). The job's history is stored as events
// either way; the lines are for watching a worker, and the summary says what it does at a
// glance. Nothing is built for a level that is off.

import { jobStateFields, type LogFields } from '@sluice/contracts';
import type { StoredEvent } from '@sluice/storage';
import type { AttemptJob } from '../attempt/attempt.js';
import type { WorkerLogger } from '../logger.js';

export const DEFAULT_STATE_SUMMARY_EVERY_MS = 10_000;

export interface JobStateLog {
  /** Logs stored events (only their state changes). */
  log(events: readonly StoredEvent[]): void;
  /** Writes the summary of the changes not summarised yet (on stop), and stops its timer. */
  close(): void;
}

export function createJobStateLog(
  logger: WorkerLogger,
  /** The jobs this worker holds: a line names the attempt's version and trace. */
  held: { jobOf(jobId: string): AttemptJob | undefined },
  summaryEveryMs = DEFAULT_STATE_SUMMARY_EVERY_MS,
): JobStateLog {
  /** Changes since the last summary, by the state entered. */
  let counts = new Map<string, number>();
  let since = 0;
  let timer: NodeJS.Timeout | undefined;
  const summarise = () => {
    clearTimeout(timer);
    timer = undefined;
    if (counts.size === 0) return;
    const byState: LogFields = {};
    let changes = 0;
    for (const [state, n] of counts) {
      byState[state] = n;
      changes += n;
    }
    logger.info('job states', { changes, seconds: (Date.now() - since) / 1000, ...byState });
    counts = new Map();
  };
  return {
    log(events) {
      // Asked per batch, not once: a logger's level may change while the worker runs.
      const debug = logger.debug && logger.isLevelEnabled?.('debug') !== false;
      const info = logger.isLevelEnabled?.('info') !== false;
      if (!debug && !info) return;
      for (const stored of events) {
        const e = stored.event;
        if (e.type !== 'state') continue;
        if (debug) logger.debug?.('job state', jobStateFields(e, stored.kind, held.jobOf(e.jobId)));
        if (!info) continue;
        counts.set(e.to, (counts.get(e.to) ?? 0) + 1);
        if (timer === undefined) {
          since = Date.now();
          // Unref'd: a summary never keeps a stopped worker's process alive.
          timer = setTimeout(summarise, summaryEveryMs).unref();
        }
      }
    },
    close: summarise,
  };
}
