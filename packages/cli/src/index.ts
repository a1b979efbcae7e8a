export { defineConfig, resolveSettings, rolloutEnvName } from './define-config.js';
export type { RuntimeName, Settings, SluiceConfig } from './define-config.js';
export { findConfig, loadConfig } from './load-config.js';
export { runServe } from './commands/serve.js';
export type { Served, ServeMode } from './commands/serve.js';
export { main } from './main.js';
