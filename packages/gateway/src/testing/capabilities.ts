// A runtime-neutral capability set for gateway tests that need "a runtime that pushes jobs":
// the core must behave by these flags alone, so its tests state the flags rather than borrow a
// real runtime's set (each runtime's package tests its own set).
import { EMBEDDED_CAPABILITIES, type RuntimeCapabilities } from '@sluice/contracts';

/**
 * A platform that pushes each job into a run it creates at submit: nothing pulls, nothing is
 * dispatched inside the accept transaction, and a delayed job's run waits for its due time
 * itself. Because that run exists from submit on, nothing can move or merge it later: debounce,
 * singleton keys and batches are refused.
 */
export const PUSH_RUNTIME_CAPABILITIES: RuntimeCapabilities = Object.freeze({
  ...EMBEDDED_CAPABILITIES,
  pullsDeliveries: false,
  startsOnClaim: false,
  dispatchesInTransaction: false,
  delaysInRun: true,
  debouncesSubmits: false,
  singletonKeys: false,
  batchesSubmits: false,
});
