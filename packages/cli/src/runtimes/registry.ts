// The CLI's name → factory map, so `SLUICE_RUNTIME` / `--runtime` can pick a runtime without a
// config file. This is the only place that names runtimes: from here on code reads the runtime
// object and its capability flags. `sluice.config.ts` passes the object itself
// (`runtime: valkeyStreams({ url })`); the environment's variables are written over its options.
import { SluiceError, isSluiceError, type RuntimeEnvVar } from '@sluice/contracts';
import type { NodeRuntime } from '@sluice/gateway';
// The runtime definitions only (`./runtime` subpaths): every command reads this registry, and
// each runtime imports its transport and its gateway or worker code when a half is started.
import { cloudflareWorkflows } from '@sluice/runtime-cloudflare-workflows/runtime';
import { embedded } from './embedded.js';
import { valkeyStreams } from '@sluice/runtime-valkey-streams/runtime';
import { nats } from '@sluice/runtime-nats/runtime';

export const RUNTIME_FACTORIES = {
  embedded,
  'valkey-streams': valkeyStreams,
  'cloudflare-workflows': cloudflareWorkflows,
  nats,
} as const satisfies Record<string, () => NodeRuntime>;

export type RuntimeName = keyof typeof RUNTIME_FACTORIES;

export const RUNTIME_NAMES = Object.keys(RUNTIME_FACTORIES) as RuntimeName[];

function isRuntimeName(name: string): name is RuntimeName {
  return Object.hasOwn(RUNTIME_FACTORIES, name);
}

/** The runtime of this name with its default options. */
export function runtimeByName(name: string): NodeRuntime {
  if (!isRuntimeName(name)) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `SLUICE_RUNTIME (--runtime) must be ${RUNTIME_NAMES.slice(0, -1).join(', ')} or ${RUNTIME_NAMES.at(-1)}, got "${name}"`,
    );
  }
  return RUNTIME_FACTORIES[name]();
}

/**
 * The runtime a deployment runs: the configured object (default embedded), or the one
 * `SLUICE_RUNTIME` names when it names another; then the environment's overrides, then the
 * runtime's own check of what it still lacks (INVALID_CONFIG naming the variable).
 */
export function resolveRuntime(
  configured: NodeRuntime | undefined,
  env: Readonly<Record<string, string | undefined>>,
  badVariable?: (variable: RuntimeEnvVar, value: string, rule: string) => never,
): NodeRuntime {
  const named = env.SLUICE_RUNTIME;
  const base =
    named && named !== configured?.name ? runtimeByName(named) : (configured ?? embedded());
  let runtime: NodeRuntime;
  try {
    runtime = base.withEnv(env);
  } catch (error) {
    // An option a variable (or its flag) set is wrong: let the caller name that flag or variable
    // rather than the option the user never wrote.
    const { field, rule } = (isSluiceError(error) ? error.details : undefined) ?? {};
    const variable = typeof field === 'string' ? base.env[field] : undefined;
    const value = variable ? env[variable.name] : undefined;
    if (badVariable && variable && value && typeof rule === 'string')
      badVariable(variable, value, rule);
    throw error;
  }
  const missing = runtime.check();
  if (missing) throw new SluiceError('INVALID_CONFIG', `the ${runtime.name} runtime ${missing}`);
  return runtime;
}

/** Every environment variable a known runtime reads, for the commands' flags and help. */
export function runtimeEnvVars(): { name: string; flag?: string; description: string }[] {
  const seen = new Map<string, { name: string; flag?: string; description: string }>();
  for (const factory of Object.values(RUNTIME_FACTORIES)) {
    for (const v of Object.values(factory().env)) seen.set(v.name, v);
  }
  return [...seen.values()];
}
