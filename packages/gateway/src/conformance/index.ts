// `@sluice/gateway/conformance`: what a runtime package's tests need of the gateway — the
// gateway fixture, test drivers, the cross-process job set and the dispatcher conformance suite.
// Resolved from source inside the workspace (the `@sluice/source` condition); not built or
// published. Re-exports only.
export * from '../testing/drive.js';
export * from '../testing/fixture.js';
export * from '../testing/xp-jobs.js';
export * from '../testing/seeded-bugs.js';
export * from '../testing/dispatcher-conformance.case.js';
