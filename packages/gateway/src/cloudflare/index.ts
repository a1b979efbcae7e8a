// `@sluice/gateway/cloudflare`: the gateway as a Cloudflare Worker (workers-gateway.ts). Runs
// inside workerd: no Node built-in, no database driver, no prom-client or pino
// (src/cloudflare-bundle.test.ts builds it and checks). A runtime's Workers half (what
// `runtime:` takes) lives in that runtime's package and types against `WorkersRuntime`.
export { createWorkersGateway } from './workers-gateway.js';
export type { WorkersGateway, WorkersGatewayOptions } from './workers-gateway.js';
export type { WorkersRuntime, WorkersRuntimeResources } from './workers-runtime.js';
export type { DeadLetterNotice, GatewayDispatcher } from '../wire/gateway-dispatcher.js';
export { WORKERS_GATEWAY_FEATURES, refusedOnWorkers } from './features.js';
export type { WorkersGatewayFeature } from './features.js';
export { createPollingHub } from './polling-hub.js';
export type { PollingHubOptions } from './polling-hub.js';
export { createRequestClock } from './request-clock.js';
export type { RequestClock } from './request-clock.js';
export { createOutboxDispatchPath, reconcileOutbox } from './outbox-dispatch.js';
export { recoverRunsOnce, RUN_RECOVERY_LOCK } from './run-recovery-pass.js';
export type { RunRecoveryOptions, RunRecoveryStats } from '../recovery/recover-lost-runs.js';
export { WEB_ACCEPT_CRYPTO, webKeyLookup } from './web-crypto.js';
export type * from './platform.js';
export type { AppRouter } from '../routers/index.js';
