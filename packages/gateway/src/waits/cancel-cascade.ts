// What a stored cancel takes with it, whoever stored it (one job's `jobs.cancel`, a bulk
// cancel's batch, a singleton submit that replaced its key's older jobs). The database part —
// the cancelled jobs' waits close, their attached children (and theirs) are cancelled
// PARENT_CANCELLED — is written by `cascadeCancel` inside the transaction that stores the
// cancel, so no crash can come between them. What cannot be in a transaction comes after the
// commit, best effort (`afterCancel`): the runtime stops the runs. A run nobody stops is fenced
// anyway: its next write needs its job `running` at its epoch. A child that ended meanwhile
// stays as it ended and a detached child (`children.start(…, { detached: true })`) is left alone.

import {
  cancelDescendants,
  type CancelledDescendants,
  type Db,
  type SluiceDatabase,
} from '@sluice/storage/portable';
import type { RouterDeps } from '../routers/deps.js';

type CancelDeps = Pick<RouterDeps, 'database' | 'hub' | 'stopRun' | 'logger'>;

/**
 * In the transaction that stored the cancel of `ids`. Without interactive transactions (D1)
 * there is no transaction to join: `undefined`, and `afterCancel` writes the cascade after the
 * cancel, best effort, as the next statements.
 */
export async function cascadeCancel(
  database: SluiceDatabase,
  tx: Db,
  tenantId: string,
  ids: readonly string[],
): Promise<CancelledDescendants | undefined> {
  if (!database.capabilities.interactiveTransactions) return undefined;
  return cancelDescendants(tx, tenantId, ids);
}

/**
 * After the commit of a cancel of `jobs` whose cascade `cascaded` was written with it: publishes
 * the descendants' events and stops every run (the jobs' and their descendants'). Every failure
 * is logged, none is thrown: the cancels are stored.
 */
export async function afterCancel(
  deps: CancelDeps,
  tenantId: string,
  jobs: readonly { id: string; version: string }[],
  cascaded: CancelledDescendants | undefined,
): Promise<void> {
  const done =
    cascaded ??
    (await cancelDescendants(
      deps.database.db,
      tenantId,
      jobs.map((j) => j.id),
    ).catch((error: unknown) => {
      deps.logger.error('cancelling the children of a cancelled job failed', { tenantId, error });
      return { events: [], jobs: [] };
    }));
  if (done.events.length) deps.hub.publish(done.events);
  // The runtime stops the run (a push platform: terminate the run's instance).
  for (const job of [...jobs, ...done.jobs])
    await deps
      .stopRun?.(job)
      .catch((error: unknown) =>
        deps.logger.error('stopping a cancelled run failed', { jobId: job.id, error }),
      );
}
