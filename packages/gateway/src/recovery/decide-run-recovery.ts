// What the run recovery does with one quiet job, given how its run stands. Pure: the whole table
// is here, and tests read it row by row.
//
//   run status                 job queued                  job running
//   errored/terminated         restart                     fence (retry), restart
//   not_found                  create                      fence (retry), create
//   complete                   restart                     fence (retry), restart
//   running, quiet ≥ stuckMs   restart                     fence (retry), restart
//   running/queued/waiting     leave                       leave
//   paused, unknown            leave                       leave
//
// and any re-dispatch of a job whose attempt budget is spent is a dead letter instead
// (MAX_ATTEMPTS, the run's status in the detail). `complete` while the job is not terminal means
// the run's last write never landed: the job's outcome is not known, so it runs again under a new
// epoch (the ledger answers every provider call that was billed, so nothing is billed twice).
// `running` past `stuckMs` is a run whose engine died without the platform noticing (a local
// engine after its process was killed keeps saying `running` for good); a live run writes more
// often than that (every unit's progress renews its lease), so only a dead one stays this quiet.

import type { RunStatus } from '@sluice/contracts';

export type RunRecoveryAction =
  | { kind: 'leave' }
  /** Start the run again: `create` when there is none, `restart` when there is one. */
  | { kind: 'redispatch'; via: 'create' | 'restart' }
  | { kind: 'dead_letter'; detail: string };

export interface RunRecoveryInput {
  status: RunStatus;
  job: { state: 'queued' | 'running'; attempts: number; maxAttempts: number };
  /** How long the job has had no write. */
  quietForMs: number;
  /** A `running` run this quiet is taken for dead. */
  stuckMs: number;
}

const LOST: readonly RunStatus[] = ['errored', 'terminated', 'complete', 'not_found'];

export function decideRunRecovery(input: RunRecoveryInput): RunRecoveryAction {
  const { status, job } = input;
  const stuck = status === 'running' && input.quietForMs >= input.stuckMs;
  if (!LOST.includes(status) && !stuck) return { kind: 'leave' };
  // A queued job whose run never started counted no attempt: it only needs its run.
  if (job.state === 'running' && job.attempts >= job.maxAttempts) {
    const what = stuck ? `made no progress for ${Math.round(input.quietForMs / 1000)} s` : status;
    return {
      kind: 'dead_letter',
      detail: `its run ended without an outcome (${what}) after attempt ${job.attempts} of ${job.maxAttempts}`,
    };
  }
  return { kind: 'redispatch', via: status === 'not_found' ? 'create' : 'restart' };
}
