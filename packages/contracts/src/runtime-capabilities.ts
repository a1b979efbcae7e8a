// What the embedded runtime can do, stated once for both its halves (the gateway's dispatcher
// and the worker's consumer). Code reads these flags, never a runtime's name; every other
// runtime states its own set in its package (runtime-nats, runtime-valkey-streams, …).

import type { RuntimeCapabilities } from './runtime.js';

/** A lease queue in the job database (SQLite, PostgreSQL). */
export const EMBEDDED_CAPABILITIES: RuntimeCapabilities = Object.freeze({
  memoizesSteps: false,
  reclaimsAbandoned: true,
  dispatchesInTransaction: true,
  carriesEvents: false,
  pullsDeliveries: true,
  startsOnClaim: true,
  acksWithOutcome: true,
  delaysJobs: true,
  delaysInRun: false,
  prioritizes: true,
  // The claim round-robins across tenants within a priority (storage fair-queued.ts).
  fairAcrossTenants: true,
  // Start limits are checked when an attempt starts (worker host start-gate.ts).
  limitsStarts: true,
  limitsProviders: true,
  // The gateway's due-job scheduler dispatches a scheduled job when due: its due time may move.
  debouncesSubmits: true,
  singletonKeys: true,
  batchesSubmits: true,
  // A suspended job is a `waiting` row; resuming it queues the row again (the table is the queue).
  durableWaits: true,
  childJobs: true,
  // The claim reads the row anyway (it is the queue).
  startsFromPointer: false,
});
