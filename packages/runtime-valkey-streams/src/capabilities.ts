// What the Valkey Streams runtime can do, stated once for both its halves (the gateway's
// dispatcher and the worker's consumer). Code reads these flags, never the runtime's name.

import type { RuntimeCapabilities } from '@sluice/contracts';

/**
 * Consumer groups on Valkey/Redis Streams; status events travel on an events stream.
 * `fairAcrossTenants` follows the gateway's dispatch: with bounded depth (the default) at most a
 * few entries per stream are undelivered and the fair feeder hands the rest out round-robin
 * across tenants; unbounded (`fairness: false`) a stream is read in arrival order.
 */
export function valkeyStreamsCapabilities(fair: boolean): RuntimeCapabilities {
  return Object.freeze({
    memoizesSteps: false,
    reclaimsAbandoned: true,
    dispatchesInTransaction: false,
    carriesEvents: true,
    pullsDeliveries: true,
    startsOnClaim: false,
    acksWithOutcome: false,
    delaysJobs: true,
    delaysInRun: false,
    // A stream per priority band (high 1…10, normal 0, low −10…−1) per (kind, version), read
    // highest band first with every 8th read lowest first (aging). Order is by band, not by value.
    prioritizes: true,
    fairAcrossTenants: fair,
    limitsStarts: true,
    limitsProviders: true,
    // Flow control moves a `scheduled` job's due time in the database; the gateway's due-job
    // scheduler dispatches it when due, so the stream only ever sees the final due time.
    debouncesSubmits: true,
    singletonKeys: true,
    batchesSubmits: true,
    // Resuming writes the outbox row and dispatches after commit, like a due delayed job.
    durableWaits: true,
    childJobs: true,
  });
}
