// `@sluice/worker/node`: the runtime host — createWorker, the embedded runtime (the default;
// other runtimes come in their own packages), probes, metrics, logging — plus everything of `@sluice/worker/core`
// (re-exported here, so a Node app needs one import). Re-exports only.
export * from './core.js';
export { createWorker } from './create-worker.js';
export type {
  CreateWorkerOptions,
  RuntimeContext,
  RuntimeOption,
  Worker,
} from './create-worker.js';
export {
  createEmbeddedRuntime,
  defaultWorkerId,
  DEFAULT_LEASE_MS,
} from './backends/create-embedded-runtime.js';
export type { EmbeddedRuntimeOptions } from './backends/create-embedded-runtime.js';
export { createEmbeddedQueueStore } from './backends/embedded-queue-store.js';
export type { EmbeddedQueueStoreOptions } from './backends/embedded-queue-store.js';
export { createEmbeddedConsumer, EMBEDDED_CAPABILITIES } from './runtimes/embedded.js';
export type { EmbeddedConsumerOptions } from './runtimes/embedded.js';
export { registerRuntimeStats, runtimeServedVersions } from './host/runtime-stats.js';
export type {
  ClaimedDelivery,
  ClaimedJob,
  EmbeddedDelivery,
  EmbeddedLease,
  EmbeddedQueueStore,
} from './runtimes/types.js';
export { RuntimeHost } from './host/runtime-host.js';
// For runtimes' consumers: their heartbeats and maintenance rounds.
export { every } from './host/periodic.js';
export type { Periodic } from './host/periodic.js';
export type { RuntimeHostOptions } from './host/runtime-host.js';
export { createUnitCheckpoints } from './checkpoints/index.js';
export type {
  LargeResultStore,
  UnitCheckpoints,
  UnitCheckpointsOptions,
} from './checkpoints/index.js';
export { decideStagingSweep, STAGING_ROOT, sweepStaging } from './assets/index.js';
export type { StagingSweepOptions } from './assets/index.js';
export { idempotencyKeyOf, sendRequest } from './guard/index.js';
export type {
  AsyncJobSpec,
  AsyncJobStatus,
  CallInfo,
  CallOptions,
  ProviderAnswer,
  ProviderClient,
  ProviderGuard,
  ProviderRequest,
  RequestSpec,
  SendOptions,
  SendRequest,
  SendResult,
} from './guard/index.js';
export { decideDelivery } from './host/decide-delivery.js';
export type { DeliveryDecision, DeliveryFacts } from './host/decide-delivery.js';
export { sweepUnroutable } from './host/sweep-unroutable.js';
export type { SweepOptions } from './host/sweep-unroutable.js';
export { startProbes } from './host/probes-server.js';
export type { ProbesOptions, ProbesServer } from './host/probes-server.js';
export { installShutdown } from './host/install-shutdown.js';
export type { InstallShutdownOptions, Stoppable } from './host/install-shutdown.js';
export { createWorkerMetrics, NO_OBSERVATIONS } from './metrics.js';
export type {
  WorkerCounters,
  WorkerGauges,
  WorkerMetrics,
  WorkerMetricsOptions,
  WorkerMetricsRegistry,
  WorkerObservations,
} from './metrics.js';
export { createLogger, createStderrLogger, silentLogger } from './logger.js';
export type { LogFields, LoggerOptions, WorkerLogger } from './logger.js';
export type { SettledJob } from './writers/finish-plan.js';
