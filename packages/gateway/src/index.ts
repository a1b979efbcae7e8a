export { createGateway } from './create-gateway.js';
export type { Gateway, GatewayOptions } from './create-gateway.js';
export { serve, serveMetrics } from './serve.js';
export type { RunningGateway, ServeOptions } from './serve.js';
export type { AppRouter } from './routers/index.js';
export { createEmbeddedDispatcher, EMBEDDED_CAPABILITIES } from './runtimes/embedded.js';
export {
  createReconciler,
  RECONCILER_LOCK,
  startReconciler,
} from './reconciler/create-reconciler.js';
export type {
  DataLossDetector,
  Reconciler,
  ReconcilerOptions,
  ReconcilerStats,
  ReconcilerWiring,
} from './reconciler/create-reconciler.js';
export { recoverLostRuns, RUN_RECOVERY_DEFAULTS } from './recovery/recover-lost-runs.js';
export type {
  RecoverLostRunsArgs,
  RunRecoveryOptions,
  RunRecoveryStats,
} from './recovery/recover-lost-runs.js';
export { decideRunRecovery } from './recovery/decide-run-recovery.js';
export type { RunRecoveryAction, RunRecoveryInput } from './recovery/decide-run-recovery.js';
export type { RuntimeProbes } from './observability/health.js';
// For runtimes' own readiness probes (their transport's round trip, bounded).
export { answersWithin } from './observability/health.js';
export type {
  GatewayRuntimeHalf,
  NodeRuntime,
  RuntimeResources,
  RuntimeRouteDeps,
  RuntimeRoutes,
} from './runtimes/runtime-half.js';
export type { DispatchBatchOptions } from './dispatch/dispatch-batcher.js';
export type { DeadLetterNotice, GatewayDispatcher } from './wire/gateway-dispatcher.js';
export { createApiKeyAuth, bearerToken, DEV_TENANT } from './auth/api-key-auth.js';
export type { Gatekeeper } from './auth/gatekeeper.js';
export { admitHttp } from './auth/admit-http.js';
export { DEFAULT_LIMITS, UNLIMITED_RATE } from './limits/limits.js';
export type { Limits, LimitOverrides } from './limits/limits.js';
export type { ApiKeyAuth, AuthOptions, Principal } from './auth/api-key-auth.js';
export type { EventHub, HubSubscriber, EventTailer, TailerSink } from './events/event-hub.js';
export { createLogger } from './observability/logger.js';
export type { GatewayLogger, LoggerOptions } from './observability/logger.js';
export type { GatewayMetrics } from './observability/metrics.js';
// For runtimes' own collectors (their probes' `registerMetrics`).
export { counterFrom, sharedRead } from './observability/metrics.js';
export type { UploadOptions } from './uploads/uploads.js';
export { DEFAULT_UPLOAD_TYPES } from './uploads/upload-types.js';
export type { WebSocketOptions, WebSocketEndpoint } from './http/websocket.js';
export { FileListInput, FileListResult, FileDeleteResult } from './routers/files.js';
export type { ErrorData, IssueView } from './trpc/errors.js';
