// `@sluice/worker/conformance`: what a runtime package runs against its consumer — the consumer
// conformance suite (`runtimeConformance`, with its harness), the crash-point matrix, the
// invariant and limit cases (each run with the runtime's rig), the worker children a runtime's
// test entry plugs into (`RUNTIME_MODULE`), seeded bugs and fixtures.
// Resolved from source inside the workspace (the `@sluice/source` condition); not built or
// published. Re-exports only.
export * from './conformance.case.js';
export * from './conformance-kit.js';
export * from './crash-matrix.case.js';
export * from './crash-matrix-rows.js';
export * from './paid-harness.js';
export * from './paid-job.js';
export type { PaidChildRuntime, WorkerChildRuntime } from './paid-child-runtime.js';
export * from './asset-runs.js';
export * from './asset-fixture.js';
export * from './seeded-bugs.js';
export * from './submit-xp-jobs.js';
export * from './outbox-pump.js';
export * from './limit-workers.js';
export * from './start-limits.case.js';
export * from './provider-limits.case.js';
export * from './invariant-rig.js';
export * from './no-silent-version-fallback.case.js';
export * from './restarted-worker-takes-its-jobs-back.case.js';
export * from './no-job-lost-on-crash.case.js';
export * from './zombie-writes-fenced.case.js';
export * from './dead-worker-taken-over-in-seconds.case.js';
export * from './zombie-publishes-nothing.case.js';
export * from './figures.js';

/** The test worker child (`xp.work`; embedded unless its environment says otherwise). */
export const WORKER_CHILD = new URL('./worker-child.ts', import.meta.url);
/** The paid worker child: `RUNTIME_MODULE=<path>` runs it on a runtime package's consumer. */
export const PAID_WORKER_CHILD = new URL('./paid-worker-child.ts', import.meta.url);
