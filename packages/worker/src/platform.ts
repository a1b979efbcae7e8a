// `@sluice/worker/platform`: what a push platform needs to run ONE attempt of ONE job inside
// someone else's step engine. A push platform owns the loop a host owns elsewhere: its engine
// calls it with one job, replays it after a crash, retries its steps; the platform reads the job
// row, runs the stages with each durable step bound to the engine's, writes the attempt under
// the epoch fence and stores the outcome, all through a job store of its own. It lives in its
// runtime package; this entry is the part of the worker it builds on, and nothing of a host.
//
// Everything of `/core` (the stage runner, the step seam, the outcome decision, the provider
// guard with its fetch sender, the asset protocol, the hooks), plus the pieces below that a host
// keeps to itself. Like `/core` it carries no Node built-in and no database driver: it bundles
// for workerd (platform-bundle.test.ts), where a push platform's run usually lives.
export * from './core.js';

// The attempt a platform tracks across its steps: created from the row it read (the epoch,
// attempt number and attempt id it runs as, the fence it writes under), aborted when a write is
// refused (the cause tells a cancel from a takeover). `classifyError` is how the platform tells
// an error its engine may retry (the step is retried) from one it must not (a paid call that may
// have been billed), before the outcome is decided.
export { abortAttempt, createAttempt } from './attempt/attempt.js';
export type { Attempt, NewAttempt } from './attempt/attempt.js';
export { classifyError } from './attempt/decide-outcome.js';
export type { ErrorClass } from './attempt/decide-outcome.js';

// The write model: what an attempt writes next as ONE storage `AttemptWrite` (start, events,
// checkpoints, and with `finish` its end), and the fence moved once it landed. A platform sends
// the write to its own job store; the shape and the fence are the same as a host's.
export { applyWritten, buildWrite } from './writers/build-write.js';
export type {
  BuiltWrite,
  FinishWrite,
  StoredOutcome,
  WriteContext,
} from './writers/build-write.js';
export { finishWriteOf } from './writers/finish-plan.js';

// The provider guard's ledger and shared limits over a job store's database: the ledger row of a
// paid call lands before its request leaves. A job store with no database (one reached over the
// gateway's callbacks) brings its own `CallLedger`.
export { databaseLedger } from './guard/call-ledger.js';
export type { CallLedger } from './guard/call-ledger.js';
export { createProviderLimiter, resolveProviderLimits } from './guard/provider-limiter.js';
export type { ProviderLimiter } from './guard/provider-limiter.js';
/** Byte length as a platform's size limits count it (UTF-8, no Node `Buffer`). */
export { utf8Length } from './guard/guard-deps.js';

// The sweepers of staged uploads and unreferenced asset blobs, for a platform with no host to
// run them: its own scheduler (a cron trigger) calls them over its database and blob store.
export { STAGING_ROOT, sweepStaging } from './assets/staging-sweeper.js';
export type { StagingSweepOptions } from './assets/staging-sweeper.js';
export { sweepOrphanAssets } from './assets/orphan-sweeper.js';
export type { OrphanAssetSweepOptions } from './assets/orphan-sweeper.js';
