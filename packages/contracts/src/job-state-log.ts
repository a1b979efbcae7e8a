// The job state log of a gateway or worker, read from the events as they are stored, so a line
// says what the database holds, never what was only intended:
//
// - `debug`: one `job state` line per stored change (accepted, queued, running, succeeded,
//   retried, dead-lettered …) with the job's id, kind, version, attempt and trace id — every
//   change, for an operator following one job;
// - `info`: one `job states` summary line per period (default 10 s) while changes happen: how
//   many changes the process stored, counted by the state entered. Nothing when idle.
//
// Why not a line per change at `info`: a busy process stores two per job (a worker its `running`
// and its end, a gateway a submit's `accepted` and `queued`), and formatting and writing them was
// ~4 % of a Streams worker's CPU in the no-op drain (15–22 % before the lines were written in
// bursts), and as much again in a gateway accepting 1,000 jobs/s. The job's history is stored as
// events either way; the lines are for watching a process, and the summary says what it does at
// a glance. Nothing is built for a level that is off. Runtime-neutral: where timers cannot be
// unreferenced (Workers) a due summary is also written by the next change that sees it due.

import type { JobEvent } from './events.js';
import { jobStateFields, type LogFields, type SluiceLogger } from './logging.js';

export const DEFAULT_STATE_SUMMARY_EVERY_MS = 10_000;

/** A stored event with its job's kind (storage's `StoredEvent` fits). */
export interface LoggedEvent {
  readonly kind: string;
  readonly event: JobEvent;
}

/** What a line names of the job besides the event: its version, attempts and trace. */
export type JobFieldsOf = (
  jobId: string,
) => { version?: string; attempts?: number; traceContext?: string | null } | undefined;

export interface JobStateLog {
  /** Logs stored events (only their state changes). */
  log(events: readonly LoggedEvent[], jobOf?: JobFieldsOf): void;
  /** Writes the summary of the changes not summarised yet (on stop), and stops its timer. */
  close(): void;
}

export function createJobStateLog(
  logger: Partial<Pick<SluiceLogger, 'info' | 'debug' | 'isLevelEnabled'>> | undefined,
  summaryEveryMs = DEFAULT_STATE_SUMMARY_EVERY_MS,
): JobStateLog {
  /** Changes since the last summary, by the state entered. */
  let counts = new Map<string, number>();
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const summarise = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (counts.size === 0 || !logger) return;
    const byState: LogFields = {};
    let changes = 0;
    for (const [state, n] of counts) {
      byState[state] = n;
      changes += n;
    }
    logger.info?.('job states', { changes, seconds: (Date.now() - since) / 1000, ...byState });
    counts = new Map();
  };
  return {
    log(events, jobOf) {
      if (!logger) return;
      // Asked per batch, not once: a logger's level may change while the process runs.
      const debug = logger.debug && logger.isLevelEnabled?.('debug') !== false;
      const info = logger.info !== undefined && logger.isLevelEnabled?.('info') !== false;
      if (!debug && !info) return;
      for (const stored of events) {
        const e = stored.event;
        if (e.type !== 'state') continue;
        if (debug) logger.debug?.('job state', jobStateFields(e, stored.kind, jobOf?.(e.jobId)));
        if (!info) continue;
        if (counts.size > 0 && Date.now() - since >= summaryEveryMs) summarise();
        counts.set(e.to, (counts.get(e.to) ?? 0) + 1);
        if (timer === undefined) {
          since = Date.now();
          timer = setTimeout(summarise, summaryEveryMs);
          // Unreferenced where the platform allows: a summary never keeps a stopped process alive.
          (timer as { unref?: () => void }).unref?.();
        }
      }
    },
    close: summarise,
  };
}
