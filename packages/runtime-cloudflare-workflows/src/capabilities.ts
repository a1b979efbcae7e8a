// What the Cloudflare Workflows runtime can do, stated once for every half that runs it (the Node
// gateway's REST dispatcher, the Workers gateway's binding dispatcher and the Workflow run itself).
// Code reads these flags, never the runtime's name.

import type { RuntimeCapabilities } from '@sluice/contracts';

/**
 * Cloudflare Workflows: the platform pushes each job into its own Workflow instance (no pull
 * consumer), memoizes `step.do` results so a replay re-runs no finished step, and resumes an
 * interrupted instance by itself. State and events live in D1 and reach watchers through the
 * database tailer; the instance's end is the delivery's end (nothing to acknowledge).
 */
export const CLOUDFLARE_WORKFLOWS_CAPABILITIES: RuntimeCapabilities = Object.freeze({
  memoizesSteps: true,
  reclaimsAbandoned: true,
  dispatchesInTransaction: false,
  carriesEvents: false,
  pullsDeliveries: false,
  startsOnClaim: false,
  acksWithOutcome: true,
  // A delayed job's instance is created at submit and sleeps until its due time
  // (`step.sleepUntil`, step `sluice:due`) before its start step moves it scheduled → running.
  delaysJobs: true,
  delaysInRun: true,
  // No ordering on Workers: refused at submit, never ignored.
  prioritizes: false,
  // One instance per job, scheduled by the platform: no order Sluice controls.
  fairAcrossTenants: false,
  // No shared start counters on the Workflows path: refused at submit, never ignored.
  limitsStarts: false,
  // The guard takes slots and tokens from the D1 counters every instance shares.
  limitsProviders: true,
  // The instance is created at submit and sleeps until the due time it was given: a debounce
  // window or a batch wait that moves later, or a held singleton, cannot reach it. Refused.
  debouncesSubmits: false,
  singletonKeys: false,
  batchesSubmits: false,
  // A wait would map to `step.waitForEvent`/`step.sleep` and a resume to `instance.sendEvent`,
  // through the D1 job store's batches: not built yet, so refused (submit and call), never faked.
  durableWaits: false,
  childJobs: false,
  // The run reads its row through the job store; the pointer is its Workflow's parameters.
  startsFromPointer: false,
});

/**
 * Cloudflare Workflows whose job store is a Node gateway (dispatched over the REST API): the run
 * reads and writes its job through the gateway's signed callbacks, which carry no shared limit
 * counters, so a kind whose provider calls declare limits is refused at submit.
 */
export const CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES: RuntimeCapabilities = Object.freeze({
  ...CLOUDFLARE_WORKFLOWS_CAPABILITIES,
  limitsProviders: false,
});
