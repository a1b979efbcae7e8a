// Releases singleton jobs held in `queue` mode: for each key whose current job reached a final
// state (or is gone), the oldest held job becomes the key's current job and is due now, so the
// due-job scheduler's pass dispatches it like any due job. Run by the replica holding the
// scheduler's lock, before it moves due jobs; each key in its own transaction under the key's
// lock, so a submit deciding for the same key sees either the old current job or the released one.

import { FINAL_STATES } from '@sluice/contracts';
import {
  dropWaiting,
  lockFlowKey,
  releasableKeys,
  releaseHeldForKey,
  setFlowKey,
  waitingForKey,
  type SluiceDatabase,
} from '@sluice/storage/portable';
import { isLiveSingleton } from './decide-flow.js';

/** Releases one held job per free key; resolves with how many were released. */
export async function releaseSingletons(
  database: SluiceDatabase,
  now = Date.now(),
): Promise<number> {
  const keys = await releasableKeys(database.db, FINAL_STATES);
  let released = 0;
  for (const key of keys) {
    const ref = { ...key, flow: 'singleton' };
    released += await database.transaction(async (tx) => {
      const slot = await lockFlowKey(tx, ref, now);
      if (isLiveSingleton(slot)) return 0;
      const held = await waitingForKey(tx, key);
      const next = held.find((h) => h.state === 'scheduled');
      // Held jobs cancelled meanwhile leave the queue with the one released.
      const leaving = held.filter((h) => h.state !== 'scheduled' || h === next);
      await dropWaiting(
        tx,
        leaving.map((h) => h.jobId),
      );
      if (!next || !(await releaseHeldForKey(tx, next.jobId, now))) return 0;
      await setFlowKey(tx, ref, { jobId: next.jobId, openedAt: now, closesAt: null, size: 1 }, now);
      return 1;
    });
  }
  return released;
}
