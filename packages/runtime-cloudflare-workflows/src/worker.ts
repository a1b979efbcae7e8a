// `@sluice/runtime-cloudflare-workflows/worker`: what a Worker imports to run jobs on Cloudflare
// Workflows. One Workflow class per job version (`createSluiceWorkflow`), a router that creates
// instances by the job id's prefix and dead-letters what no binding serves
// (`createWorkflowRouter`), the run's job stores (D1, or the Node gateway that dispatched the job
// over its signed callbacks), the dead-letter queue and the runtime's capabilities. The run is
// built here on `@sluice/worker/platform` (the attempt, guard and write model a push platform
// drives); its core is re-exported so a Worker needs one import. Runs inside workerd: no Node
// built-in, no database driver (worker-bundle.test.ts).
export { CLOUDFLARE_WORKFLOWS_CAPABILITIES } from './capabilities.js';
export { createSluiceWorkflow } from './worker/create-workflow.js';
export type { SluiceWorkflowClass, SluiceWorkflowOptions } from './worker/create-workflow.js';
export { createWorkflowRouter } from './worker/router.js';
export type { DispatchResult, WorkflowRouter, WorkflowRouterOptions } from './worker/router.js';
export { runWorkflowJob } from './worker/workflow-run.js';
export { workflowAttemptId } from './worker/run-start.js';
export type { WorkflowRunDeps, WorkflowRunResult } from './worker/workflow-run.js';
export { deadLetter } from './worker/dead-letter.js';
export type { DeadLetterMessage } from './worker/dead-letter.js';
export { STEP_RESULT_LIMIT_BYTES } from './worker/engine-protocol.js';
export { createStateReporter } from './worker/state-reporter.js';
export type { StateReporter, StateReporterOptions } from './worker/state-reporter.js';
export type * from './platform.js';
export { d1JobStore } from './worker/job-store.js';
export type { RunJobStore } from './worker/job-store.js';
export { gatewayJobStore, gatewayStoreFromEnv } from './worker/gateway-job-store.js';
export type { GatewayJobStoreOptions } from './worker/gateway-job-store.js';
// A Worker's cron trigger sweeps staged uploads and orphaned asset blobs on D1 + R2; the handler
// definition, the capabilities' readers and the rest of the core come with them.
export {
  sweepStaging,
  STAGING_ROOT,
  sweepOrphanAssets,
  type StagingSweepOptions,
  type OrphanAssetSweepOptions,
  type CallLedger,
} from '@sluice/worker/platform';
export * from '@sluice/worker/core';
