// What the Valkey Streams runtime can do, stated once for both its halves (the gateway's
// dispatcher and the worker's consumer). Code reads these flags, never the runtime's name.

import { EMBEDDED_CAPABILITIES, type RuntimeCapabilities } from '@sluice/contracts';

/**
 * Consumer groups on Valkey/Redis Streams; status events travel on an events stream.
 * `fairAcrossTenants` follows the gateway's dispatch: with bounded depth (the default) at most a
 * few entries per stream are undelivered and the fair feeder hands the rest out round-robin
 * across tenants; unbounded (`fairness: false`) a stream is read in arrival order.
 *
 * Stated as what the transport changes from the embedded runtime's flags, so a flag added there
 * is seen here too. Kept as the embedded runtime has them: reclaims, delays through the database,
 * priorities (a stream per band, high 1…10, normal 0, low −10…−1, read highest band first with
 * every 8th read lowest first: order by band, not by value), start and provider limits, flow
 * control (a `scheduled` job's due time moves in the database; the gateway's due-job scheduler
 * dispatches it when due, so the stream only sees the final due time), durable waits and child
 * jobs (a resume writes the outbox row and dispatches after commit, like a due delayed job).
 */
export function valkeyStreamsCapabilities(
  fair: boolean,
  /** Submit pointers carry the accepted row (the `pointerSnapshots` option; default on). */
  pointerSnapshots = true,
): RuntimeCapabilities {
  return Object.freeze({
    ...EMBEDDED_CAPABILITIES,
    // The stream is outside the database: dispatched after commit, not inside it.
    dispatchesInTransaction: false,
    carriesEvents: true,
    // A read hands out an entry; the attempt starts in the database afterwards, and the entry is
    // acknowledged only once the outcome is stored.
    startsOnClaim: false,
    acksWithOutcome: false,
    fairAcrossTenants: fair,
    // A `>` read marks its deliveries `fresh`; the gateway's submit pointers carry the row
    // (unless turned off for workers that predate pointer format 2).
    startsFromPointer: pointerSnapshots,
  });
}
