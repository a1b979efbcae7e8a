// `@sluice/worker/core`: what one attempt needs and nothing of a host — the stage runner, the step
// seam, the unit pool, the outcome decision, the provider guard (its sender injected), the asset
// protocol and the handler definition. No Node built-in, no database driver, no Redis client:
// `@sluice/worker/platform` builds on it for push platforms, which usually run inside workerd
// (platform-bundle.test.ts checks both bundles), and `@sluice/worker/node` adds the pull
// runtimes, the host and the probes.
export { defineHandler } from './attempt/define-handler.js';
export type {
  Handler,
  HandlerContext,
  HandlerFiles,
  HandlerStages,
  ProviderName,
  StepFn,
  Unit,
  UnitResult,
} from './attempt/define-handler.js';
export { resolveHandlers } from './attempt/handler-registry.js';
export type { HandlerRegistry, ResolvedHandlers } from './attempt/handler-registry.js';
export { runStages, DEFAULT_UNIT_CONCURRENCY, STAGE_STEPS } from './attempt/stage-runner.js';
export type { AttemptJob, RunStagesInput } from './attempt/stage-runner.js';
export { runPool } from './attempt/pool.js';
export type { PoolTask } from './attempt/pool.js';
export { createStep } from './attempt/step.js';
export type { CheckpointStore, CreateStepOptions } from './attempt/step.js';
export { createJobFiles } from './attempt/job-files.js';
export { decideOutcome } from './attempt/decide-outcome.js';
export type { AbortCause, AttemptResult, Outcome, OutcomeFacts } from './attempt/decide-outcome.js';
export { createAttemptAssets, createRefusingAssets } from './assets/attempt-assets.js';
export type { AttemptAssets } from './assets/attempt-assets.js';
export type { AssetBody, AssetClient, AssetWrite, WrittenAsset } from './assets/types.js';
export { createSha256 } from './assets/sha256.js';
export {
  createProviderGuard,
  createRefusingGuard,
  type ProviderGuard,
  type UnitProviderClient,
} from './guard/provider-guard.js';
export { blockedCalls, decideFromLedger, leavesDoubt } from './guard/decide-from-ledger.js';
export { idempotencyKeyOfWeb, LEDGER_ANSWER_LIMIT_BYTES } from './guard/guard-deps.js';
export type { GuardCounters, GuardDeps, GuardJob } from './guard/guard-deps.js';
export { classifyStatus } from './guard/request-shape.js';
export type { SendOptions, SendRequest, SendResult } from './guard/request-shape.js';
export { sendFetch } from './guard/send-fetch.js';
export type * from './guard/types.js';
export { CRASH_POINTS, DEFAULT_HOOKS, resolveHooks } from './hooks.js';
export type { CrashPoint, WorkerHooks } from './hooks.js';
export type { LogFields, WorkerLogger } from './logger.js';
