// `@sluice/runtime-cloudflare-workflows/workers`: the runtime's half inside the Workers gateway
// (`createWorkersGateway({ runtime: workflowsOnWorkers({ workflows }) })`) — the dispatcher that
// creates, inspects, restarts and terminates Workflow instances through their env bindings. Its
// Node counterpart (the REST dispatcher) is the package root; the Workflow classes that RUN the
// jobs are `./worker`. Runs inside workerd: no Node built-in, no database driver
// (worker-bundle.test.ts). Re-exports only.
export { workflowsOnWorkers, WorkflowsOnWorkersOptions } from './workflows-on-workers.js';
export { createWorkflowsDispatcher, CREATE_BATCH_LIMIT } from './workflows-dispatcher.js';
export type { WorkflowsDispatcher, WorkflowsDispatcherOptions } from './workflows-dispatcher.js';
export { workflowsRunStatus } from '../workflows-run-status.js';
export type * from '../platform.js';
