// The Workers gateway's run recovery, from its cron trigger: one pass of `recoverLostRuns` over
// the runtime's runs, one Worker at a time (a lock in D1: overlapping cron invocations would
// otherwise restart the same run twice). A job it dead-letters is announced where the runtime's
// own dead letters go, when the runtime announces them. Only for a dispatcher with `runs`
// (cron.ts decides): other runtimes recover their runs themselves.

import { randomToken, type RunInspector } from '@sluice/contracts';
import { acquireLock, releaseLock, type SluiceDatabase } from '@sluice/storage/portable';
import {
  recoverLostRuns,
  type RunRecoveryOptions,
  type RunRecoveryStats,
} from '../recovery/recover-lost-runs.js';
import type { GatewayDispatcher } from '../wire/gateway-dispatcher.js';

export const RUN_RECOVERY_LOCK = 'run-recovery';
/** Longer than a pass of the default size takes; a crashed pass's lock frees itself. */
const LOCK_TTL_MS = 60_000;

/** One pass, or `undefined` when another Worker holds the lock. */
export async function recoverRunsOnce(
  dispatcher: GatewayDispatcher & { readonly runs: RunInspector },
  database: SluiceDatabase,
  options: RunRecoveryOptions,
  now = Date.now(),
): Promise<RunRecoveryStats | undefined> {
  const owner = `cron-${randomToken().slice(0, 12)}`;
  const db = database.db;
  if (!(await acquireLock(db, RUN_RECOVERY_LOCK, owner, LOCK_TTL_MS, now))) return undefined;
  try {
    return await recoverLostRuns({
      database,
      runtime: dispatcher,
      options,
      now,
      onDeadLettered: async (pointer, detail) =>
        dispatcher.announceDeadLetter?.({ pointer, reason: 'MAX_ATTEMPTS', detail }),
      keepGoing: () => acquireLock(db, RUN_RECOVERY_LOCK, owner, LOCK_TTL_MS),
    });
  } finally {
    await releaseLock(db, RUN_RECOVERY_LOCK, owner).catch(() => {});
  }
}
