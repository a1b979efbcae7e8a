// `@sluice/worker/conformance`: what a runtime package runs against its consumer — the consumer
// conformance suite (`runtimeConformance`, with its harness), the crash-point matrix, the paid
// worker child a runtime's test entry plugs into (`RUNTIME_MODULE`), seeded bugs and fixtures.
// Resolved from source inside the workspace (the `@sluice/source` condition); not built or
// published. Re-exports only.
export * from '../testing/conformance.case.js';
export * from '../testing/conformance-kit.js';
export * from '../testing/crash-matrix.case.js';
export * from '../testing/paid-harness.js';
export * from '../testing/paid-job.js';
export type { PaidChildRuntime } from '../testing/paid-child-runtime.js';
export * from '../testing/asset-runs.js';
export * from '../testing/asset-fixture.js';
export * from '../testing/seeded-bugs.js';
export * from '../testing/submit-xp-jobs.js';
export * from '../testing/limit-workers.js';
export * from '../testing/figures.js';

/** The test worker child (`xp.work`; embedded unless its environment says otherwise). */
export const WORKER_CHILD = new URL('../testing/worker-child.ts', import.meta.url);
/** The paid worker child: `RUNTIME_MODULE=<path>` runs it on a runtime package's consumer. */
export const PAID_WORKER_CHILD = new URL('../testing/paid-worker-child.ts', import.meta.url);
