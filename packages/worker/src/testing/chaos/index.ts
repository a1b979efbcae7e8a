// `@sluice/worker/chaos`: the chaos soak a runtime package runs against its consumer — the run,
// its fault schedule, the audit and the vitest case — with the runtime's part (its broker, the
// worker child's environment) coming in through a `ChaosAdapter`. Resolved from source inside the
// workspace (the `@sluice/source` condition); not built or published. Re-exports only.
export type { ChaosAdapter, ChaosBroker } from './chaos-adapter.js';
export * from './chaos-audit.js';
export * from './chaos-faults.js';
export * from './chaos-run.js';
export * from './chaos-soak.case.js';
