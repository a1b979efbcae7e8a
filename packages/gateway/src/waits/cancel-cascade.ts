// A cancelled parent's attached children (and theirs) are cancelled too, each with its own
// compare-and-set transition and event, so a child that ended meanwhile stays as it ended and a
// detached child (`children.start(…, { detached: true })`) is left alone. Best effort after the
// parent's cancel is stored: a child that fails to cancel here is logged, never blocks the parent.

import { cascadeTargets, closeWaits, transitionJob } from '@sluice/storage/portable';
import type { RouterDeps } from '../routers/deps.js';

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
