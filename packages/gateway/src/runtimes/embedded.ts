// The embedded runtime's dispatch half: the queue is a table in the job database, so dispatch
// is an insert inside the accept transaction (no outbox), and the served-versions registry is
// the table the workers heartbeat. The consume half lives in @sluice/worker.

import { EMBEDDED_CAPABILITIES, type RuntimeDispatcher } from '@sluice/contracts';
import { enqueue, servedVersions, type Db, type SluiceDatabase } from '@sluice/storage';

export { EMBEDDED_CAPABILITIES };

export function createEmbeddedDispatcher(database: SluiceDatabase): RuntimeDispatcher<Db> {
  return {
    name: 'embedded',
    capabilities: EMBEDDED_CAPABILITIES,
    // Outside a transaction (a reconciler) the pointer goes in on its own.
    dispatch: (pointers, tx) => enqueue(tx ?? database.db, pointers),
    servedVersions: (kind) => servedVersions(database.db, kind),
    close: async () => {},
  };
}
