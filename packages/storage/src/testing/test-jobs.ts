// Jobs in a given state for storage and worker tests that need one row and nothing else: a
// queued job (dispatched, ready to claim), a started one (running, attempt 1), and one taken
// over from a holder whose lease lapsed.
import { setTimeout as sleep } from 'node:timers/promises';
import { formatJobId } from '@sluice/contracts';
import type { SluiceDatabase } from '../database.js';
import { insertJob, transitionJob } from '../repos/jobs.js';
import type { JobRow } from '../repos/job-row.js';
import { claimJobs } from '../write-model/claim-jobs.js';

/** A job of `kind` (version v1, tenant acme unless given), dispatched: the next claim takes it. */
export async function queuedTestJob(
  database: SluiceDatabase,
  kind: string,
  opts: { tenantId?: string; maxAttempts?: number } = {},
): Promise<string> {
  const id = formatJobId('v1');
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId: opts.tenantId ?? 'acme',
      kind,
      version: 'v1',
      input: {},
      inputHash: 'h',
      maxAttempts: opts.maxAttempts ?? 3,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
  });
  return id;
}

/** A job of `kind` started as a worker's start leaves it: running, attempt 1. */
export async function runningTestJob(database: SluiceDatabase, kind: string): Promise<JobRow> {
  const id = await queuedTestJob(database, kind);
  const r = await database.transaction((tx) => transitionJob(tx, { id, event: 'start' }));
  if (!r.ok) throw new Error(`start of ${id} failed`);
  return r.job;
}

/**
 * A queued job of `kind` claimed by `owner-a`, then claimed again by `taker-b` once a's lease
 * lapsed: `zombie` is a's epoch (a holder that lost its job), `holder` b's.
 */
export async function takenOverTestJob(
  database: SluiceDatabase,
  kind: string,
  leaseMs: number,
): Promise<{ id: string; zombie: number; holder: number }> {
  const id = await queuedTestJob(database, kind, { maxAttempts: 5 });
  const claim = (owner: string) =>
    claimJobs(database, { versions: [{ kind, version: 'v1' }], owner, leaseMs, limit: 1 });
  const [held] = await claim('owner-a');
  await sleep(leaseMs + 300);
  const [taken] = await claim('taker-b');
  if (!held || !taken) throw new Error(`the takeover of ${id} did not happen`);
  return { id, zombie: held.job.epoch, holder: taken.job.epoch };
}
