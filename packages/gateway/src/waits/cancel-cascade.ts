// What follows a stored cancel, whoever stored it (one job's `jobs.cancel`, a bulk cancel's
// batch, a singleton submit that replaced its key's older jobs): the runtime stops the run, the job's waits close, and its attached children
// (and theirs) are cancelled too, each with its own compare-and-set transition and event, so a
// child that ended meanwhile stays as it ended and a detached child (`children.start(…, {
// detached: true })`) is left alone. Best effort after the parent's cancel is stored: a step that
// fails here is logged, never undoes or blocks the parent's cancel.

import {
  cascadeTargets,
  closeWaits,
  transitionJob,
  type StoredEvent,
} from '@sluice/storage/portable';
import type { RouterDeps } from '../routers/deps.js';

type CancelDeps = Pick<RouterDeps, 'database' | 'hub' | 'stopRun' | 'logger'>;

/** Runs after a cancel of `job` committed; every failure is logged, none is thrown. */
export async function afterCancel(
  deps: CancelDeps,
  tenantId: string,
  job: { id: string; version: string },
): Promise<void> {
  // The runtime stops the run (Workflows: terminate the instance). The cancel is already
  // stored, so a run that outlives a failed stop has its next fenced write refused.
  await deps.stopRun?.(job).catch(failed(deps, job.id, 'stopping a cancelled run failed'));
  await closeAndCascade(deps, tenantId, job.id);
}

/**
 * The same for the jobs a submit cancelled (a singleton `cancel-older`: its events say which),
 * on the Node gateway only, where no runtime has a run to stop.
 */
export async function afterCancelEvents(
  deps: Omit<CancelDeps, 'stopRun' | 'logger'> & { logger?: CancelDeps['logger'] | undefined },
  tenantId: string,
  events: readonly StoredEvent[],
): Promise<void> {
  for (const { event } of events)
    if (event.type === 'state' && event.to === 'cancelled')
      await closeAndCascade(deps, tenantId, event.jobId);
}

/** Its waits close (the sweep never reads them again); its attached children go with it. */
async function closeAndCascade(
  deps: Omit<CancelDeps, 'logger'> & { logger?: CancelDeps['logger'] | undefined },
  tenantId: string,
  id: string,
): Promise<void> {
  await closeWaits(deps.database.db, id).catch(
    failed(deps, id, 'closing the waits of a cancelled job failed'),
  );
  await cancelCascade(deps, tenantId, id).catch(
    failed(deps, id, 'cancelling the children of a cancelled job failed'),
  );
}

function failed(deps: { logger?: CancelDeps['logger'] | undefined }, jobId: string, what: string) {
  return (error: unknown) => deps.logger?.error(what, { jobId, error });
}

export async function cancelCascade(
  deps: Pick<RouterDeps, 'database' | 'hub' | 'stopRun'>,
  tenantId: string,
  parentId: string,
): Promise<number> {
  const { database } = deps;
  const ids = await cascadeTargets(database.db, tenantId, parentId);
  let cancelled = 0;
  for (const id of ids) {
    const r = database.capabilities.interactiveTransactions
      ? await database.transaction((tx) =>
          transitionJob(tx, { id, event: 'cancel', reason: 'PARENT_CANCELLED' }),
        )
      : await transitionJob(database.db, { id, event: 'cancel', reason: 'PARENT_CANCELLED' });
    if (!r.ok) continue;
    cancelled++;
    await closeWaits(database.db, id);
    deps.hub.publish([r.event]);
    await deps.stopRun?.({ id, version: r.job.version }).catch(() => {});
  }
  return cancelled;
}
