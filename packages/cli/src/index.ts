export { defineConfig, resolveSettings, rolloutEnvName } from './define-config.js';
export type { CheckedHandlers, HandlerMap, Settings, SluiceConfig } from './define-config.js';
export { findConfig, loadConfig } from './load-config.js';
import type { runServe as RunServe } from './commands/serve.js';
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

/**
 * `sluice dev` / `gateway` / `worker` in this process. A `sluice.config.ts` imports this package
 * for `defineConfig`, so the gateway and the worker are imported here only when called.
 */
export async function runServe(...args: Parameters<typeof RunServe>): ReturnType<typeof RunServe> {
  const { runServe: run } = await import('./commands/serve.js');
  return run(...args);
}
