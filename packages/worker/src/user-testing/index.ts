// @sluice/worker/testing: unit-test a handler's retry safety in-process — the real worker on
// in-memory SQLite (`runJob`), a paid provider with fault knobs (`startFakeProvider`) and crash
// points (`crashAt`, the names in CRASH_POINTS).
export { runJob } from './run-job.js';
export type {
  JobRun,
  LogLine,
  RunAsset,
  RunJobInput,
  RunJobOptions,
  RunJobOutput,
} from './run-job.js';
export { PROVIDER_FAULTS, startFakeProvider } from './fake-provider.js';
export type {
  FakeProvider,
  FakeProviderOptions,
  FaultRule,
  ProviderFault,
  ProviderRecord,
} from './fake-provider.js';
export { SimulatedCrash } from './crash.js';
export { CRASH_POINTS } from '../hooks.js';
export type { CrashPoint } from '../hooks.js';
