// The embedded runtime's dispatch half: the queue is the jobs table itself, so a job written
// `queued` by the accept transaction is dispatched (no outbox; on PostgreSQL the insert NOTIFYs
// the workers), and the served-versions registry is the table the workers heartbeat. The
// consume half lives in @sluice/worker.

import { EMBEDDED_CAPABILITIES, type RuntimeDispatcher } from '@sluice/contracts';
import { enqueue, notifyWork, servedVersions, type Db, type SluiceDatabase } from '@sluice/storage';

export { EMBEDDED_CAPABILITIES };

export function createEmbeddedDispatcher(database: SluiceDatabase): RuntimeDispatcher<Db> {
  return {
    name: 'embedded',
    capabilities: EMBEDDED_CAPABILITIES,
    // Nothing to write: a queued row is claimable (enqueue only moves a due time, when given).
    // Outside a transaction (delayed jobs that came due) the idle workers are woken.
    dispatch: async (pointers, tx) => {
      if (tx) return enqueue(tx, pointers);
      if (pointers.length > 0) await notifyWork(database);
    },
    servedVersions: (kind) => servedVersions(database.db, kind),
    close: async () => {},
  };
}
