// `@sluice/storage/testing/workerd`: the runtime-neutral test helpers (no Node module), for
// suites that run inside workerd. `@sluice/storage/testing` adds the Node-only dialect runner.
export * from './suite.js';
export * from './d1.js';
