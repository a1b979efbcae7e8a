// `@sluice/runtime-cloudflare-workflows`: the runtime object for `sluice.config.ts`
// (`runtime: cloudflareWorkflows({ workflows })`) and its Node gateway half — the Workflows REST
// dispatcher and the signed callbacks a Workflow run reads and writes its job through. The Worker
// side (`createSluiceWorkflow`, `gatewayStoreFromEnv`, …) is `./worker`, and the half for a
// gateway that is itself a Worker (`workflowsOnWorkers`) is `./workers`; neither carries anything
// of Node. Re-exports only.
export { cloudflareWorkflows, CloudflareWorkflowsOptions } from './runtime.js';
export { CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES } from '@sluice/contracts';
export * from './gateway/index.js';
export { workflowsRunStatus } from './workflows-run-status.js';
