export { defineConfig, resolveSettings, rolloutEnvName } from './define-config.js';
export type { CheckedHandlers, HandlerMap, Settings, SluiceConfig } from './define-config.js';
export { findConfig, loadConfig } from './load-config.js';
export { runServe } from './commands/serve.js';
export type { Served, ServeMode } from './commands/serve.js';
export { main } from './main.js';
export { EXIT_CODES, formatCliError, UsageError, isUsageError } from './cli-errors.js';
export type { ExitCode } from './cli-errors.js';
export type { CliIo } from './cli-io.js';
export {
  RUNTIME_FACTORIES,
  RUNTIME_NAMES,
  resolveRuntime,
  runtimeByName,
} from './runtimes/registry.js';
export type { RuntimeName } from './runtimes/registry.js';
export { embedded } from './runtimes/embedded.js';
