export {
  createWorkflowsRestDispatcher,
  WORKFLOWS_CREATE_LIMITS,
} from './create-workflows-rest-dispatcher.js';
export type {
  WorkflowsRestDispatcher,
  WorkflowsRestDispatcherOptions,
} from './create-workflows-rest-dispatcher.js';
export {
  CLOUDFLARE_API_BASE,
  createWorkflowsRestClient,
  retryAfterMs,
} from './workflows-rest-client.js';
export type {
  CreateInstanceBody,
  WorkflowsRestClient,
  WorkflowsRestClientOptions,
} from './workflows-rest-client.js';
export { createTokenBucket, systemClock } from './token-bucket.js';
export type { Clock, TokenBucket } from './token-bucket.js';
export { registerStateCallback, stateCallbackRoutes } from './state-callback-route.js';
export type { StateCallbackDeps, StateCallbackOptions } from './state-callback-route.js';
export { registerRuntimeStore } from './runtime-store-route.js';
export type { RuntimeStoreDeps } from './runtime-store-route.js';
