// What the NATS JetStream runtime can do, stated once for both its halves (the gateway's
// dispatcher and the worker's consumer). Code reads these flags, never the runtime's name.

import type { RuntimeCapabilities } from '@sluice/contracts';

/**
 * Durable pull consumers, one per (kind, version), on a work-queue stream. A consumer hands
 * messages out in arrival order, so the runtime neither orders by priority (a submit with a
 * priority is refused rather than run out of order) nor interleaves tenants. Status events stay
 * in the job database and reach watchers through the database tailer.
 */
export const NATS_CAPABILITIES: RuntimeCapabilities = Object.freeze({
  memoizesSteps: false,
  // AckWait (tied to the lease) hands a dead worker's unacknowledged deliveries out again.
  reclaimsAbandoned: true,
  dispatchesInTransaction: false,
  carriesEvents: false,
  pullsDeliveries: true,
  startsOnClaim: false,
  acksWithOutcome: false,
  // Delayed jobs wait in the database; the gateway's due-job scheduler dispatches them when due.
  delaysJobs: true,
  delaysInRun: false,
  prioritizes: false,
  fairAcrossTenants: false,
  // The worker host's start gate and provider guard use database counters every worker shares.
  limitsStarts: true,
  limitsProviders: true,
  // Flow control moves a scheduled job's due time in the database before anything is dispatched.
  debouncesSubmits: true,
  singletonKeys: true,
  batchesSubmits: true,
  // A suspended job's delivery is acknowledged; its resume (a signal, a due wait, its children
  // done) writes an outbox row and is dispatched after the commit like a due delayed job, so
  // the work queue holds nothing while a job waits. The worker conformance suite's wait and
  // child cases run on this transport (conformance.test.ts).
  durableWaits: true,
  childJobs: true,
  // The reader does not mark first deliveries yet: every delivery reads its row.
  startsFromPointer: false,
});
