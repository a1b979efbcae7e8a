// `@sluice/runtime-cloudflare-workflows`: the runtime object for `sluice.config.ts`
// (`runtime: cloudflareWorkflows({ workflows })`) and its Node gateway half — the Workflows REST
// dispatcher and the signed callbacks a Workflow run reads and writes its job through. The Worker
// side (`createSluiceWorkflow`, `gatewayStoreFromEnv`, …) is `./worker`, and the half for a
// gateway that is itself a Worker (`workflowsOnWorkers`) is `./workers`; neither carries anything
// of Node. Re-exports only.
export { cloudflareWorkflows, CloudflareWorkflowsOptions } from './runtime.js';
export {
  CLOUDFLARE_WORKFLOWS_CAPABILITIES,
  CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES,
} from './capabilities.js';
// The signed wire a Workflow run and this gateway half share (paths, headers, schemas, signing).
export * from './wire/index.js';
export * from './gateway/index.js';
export { workflowsRunStatus } from './workflows-run-status.js';
