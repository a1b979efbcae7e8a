// `@sluice/worker/cloudflare`: the Cloudflare Workflows runtime. One Workflow class per job
// version (`createSluiceWorkflow`), a router that creates instances by the job id's prefix and
// dead-letters what no binding serves (`createWorkflowRouter`), and the runtime's capabilities.
// Runs inside workerd: no Node built-in, no database driver (cloudflare-bundle.test.ts).
export { CLOUDFLARE_WORKFLOWS_CAPABILITIES } from '@sluice/contracts';
export { createSluiceWorkflow } from './create-workflow.js';
export type { SluiceWorkflowClass, SluiceWorkflowOptions } from './create-workflow.js';
export { createWorkflowRouter } from './router.js';
export type { DispatchResult, WorkflowRouter, WorkflowRouterOptions } from './router.js';
export { runWorkflowJob } from './workflow-run.js';
export { workflowAttemptId } from './run-start.js';
export type { WorkflowRunDeps, WorkflowRunResult } from './workflow-run.js';
export { deadLetter } from './dead-letter.js';
export type { DeadLetterMessage } from './dead-letter.js';
export { STEP_RESULT_LIMIT_BYTES } from './engine-protocol.js';
export { createStateReporter } from './state-reporter.js';
export type { StateReporter, StateReporterOptions } from './state-reporter.js';
export { sweepStaging, STAGING_ROOT } from '../assets/staging-sweeper.js';
export type { StagingSweepOptions } from '../assets/staging-sweeper.js';
export { sweepOrphanAssets } from '../assets/orphan-sweeper.js';
export type { OrphanAssetSweepOptions } from '../assets/orphan-sweeper.js';
export type * from './platform.js';
export * from '../core.js';
export { d1JobStore } from './job-store.js';
export type { RunJobStore } from './job-store.js';
export { gatewayJobStore, gatewayStoreFromEnv } from './gateway-job-store.js';
export type { GatewayJobStoreOptions } from './gateway-job-store.js';
export type { CallLedger } from '../guard/call-ledger.js';
