// What each built-in runtime can do, stated once for both its halves (the gateway's dispatcher
// and the worker's consumer). Code reads these flags, never a runtime's name.

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
  prioritizes: true,
});

/** Consumer groups on Valkey/Redis Streams; status events travel on an events stream. */
export const VALKEY_STREAMS_CAPABILITIES: RuntimeCapabilities = Object.freeze({
  memoizesSteps: false,
  reclaimsAbandoned: true,
  dispatchesInTransaction: false,
  carriesEvents: true,
  pullsDeliveries: true,
  startsOnClaim: false,
  acksWithOutcome: false,
  delaysJobs: true,
  // One stream per (kind, version), read oldest first: no bands yet.
  prioritizes: false,
});
