// `@sluice/gateway/conformance`: what a runtime package's tests need of the gateway — the
// gateway fixture, test drivers, the cross-process job set and the dispatcher conformance suite.
// Resolved from source inside the workspace (the `@sluice/source` condition); not built or
// published. Re-exports only.
export * from './drive.js';
export * from './fixture.js';
export * from './xp-jobs.js';
export * from './seeded-bugs.js';
export * from './dispatcher-conformance.case.js';
