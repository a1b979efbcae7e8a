// `sluice.config.ts`: what a deployment runs (job registry, handlers, storage, runtime), with
// environment variables taking precedence so one config file serves every environment.

import type { JobRegistry, inferJobVersion } from '@sluice/contracts';
import {
  SluiceError,
  assertRolloutPercent,
  type LogLevel,
  parseRetentionSettings,
  type KindLimits,
  type ProviderLimits,
  type RetentionSettings,
  type RetentionSettingsInput,
} from '@sluice/contracts';
import type { LimitOverrides, NodeRuntime } from '@sluice/gateway';
import type { Handler } from '@sluice/worker';
import { resolveRuntime } from './runtimes/registry.js';
import { createSettingReader, type FlagNames } from './setting-reader.js';
import {
  DEFAULT_DATABASE,
  connectWaitOf,
  databaseOf,
  logLevelOf,
  signingSecret,
} from './setting-values.js';

/** kind → version → handler, for the kinds and versions of registry `R`. */
export type HandlerMap<R extends JobRegistry> = {
  readonly [K in keyof R]?: { readonly [V in inferJobVersion<R[K]>]?: Handler<R[K]> };
};

/**
 * `H` checked against `R`: a kind the registry lacks, or a version its kind does not declare,
 * maps to `never`, so `defineConfig` fails to compile (a handler map held in a variable gets no
 * excess-property check, hence the explicit one).
 */
export type CheckedHandlers<R extends JobRegistry, H> = {
  readonly [K in keyof H]?: K extends keyof R
    ? { readonly [V in keyof H[K]]?: V extends inferJobVersion<R[K]> ? Handler<R[K]> : never }
    : never;
};

export interface SluiceConfig<R extends JobRegistry = JobRegistry, H = HandlerMap<R>> {
  jobs: R;
  /** kind → version → handler (from `@sluice/worker`'s `defineHandler`); needed by workers only. */
  handlers?: H;
  /** `postgres://…` or a SQLite file (default `.sluice/sluice.db`). Env: DATABASE_URL. */
  database?: string;
  /** Blob folder for the local store (default `.sluice/blobs`). Env: SLUICE_BLOBS_DIR. */
  blobsDir?: string;
  /**
   * The runtime object (`valkeyStreams({ url })`, `cloudflareWorkflows({ workflows })`; default
   * `embedded()`). Env SLUICE_RUNTIME naming another runtime picks that one with its defaults;
   * the runtime's own variables (REDIS_URL, …) are written over its options.
   */
  runtime?: NodeRuntime;
  /** Gateway port (default 3000). Env: PORT. */
  port?: number;
  hostname?: string;
  /** Worker probes port (0 = a free port, printed). Env: SLUICE_WORKER_PORT. */
  workerPort?: number;
  /**
   * Serve the gateway's /metrics on this separate port, unauthenticated, instead of on the API
   * port (where it needs a key with the `metrics:read` or `admin` scope). Env: SLUICE_METRICS_PORT.
   */
  metricsPort?: number;
  /**
   * Interface of the metrics listeners (the gateway's `metricsPort`, the worker's probes port);
   * default 127.0.0.1. `0.0.0.0` lets a scraper in another container reach them. Env:
   * SLUICE_METRICS_HOST.
   */
  metricsHost?: string;
  /**
   * How long a starting command waits for the database and Redis to answer before it gives up
   * with exit code 4 (default 30000). Env: SLUICE_CONNECT_WAIT_MS.
   */
  connectWaitMs?: number;
  /**
   * A stable name for this worker (the lease owner / consumer name), so a restarted worker takes
   * its own pending work back first. Default `hostname-pid`. Env: SLUICE_WORKER_ID.
   */
  workerId?: string;
  concurrency?: number;
  readBatch?: number;
  leaseMs?: number;
  /**
   * A worker whose liveness beat (about once a second) is this old is dead, and its running jobs
   * are taken over at a new epoch (default 5000); the lease still bounds a worker alive but stuck.
   * Env: SLUICE_DEAD_AFTER_MS.
   */
  deadAfterMs?: number;
  /**
   * How long a stopping worker waits for running attempts before handing them back (default
   * 30000). An orchestrator's grace period must be longer. Env: SLUICE_DRAIN_MS.
   */
  drainMs?: number;
  uploads?: { maxBytes?: number; ttlMs?: number };
  /** Browser origins allowed to open WebSockets (same-origin is always allowed). */
  origins?: string[];
  /** Rollout percentage per kind; env SLUICE_ROLLOUT_<KIND> (dots and dashes as `_`) wins. */
  rollout?: Record<string, number>;
  /**
   * Gateway request limits (rates, subscriptions, sockets…); each unset one keeps its default.
   * `providers`: shared provider limits for workers (max concurrent guarded calls, calls per
   * second, wait bound), overriding what the job definitions' provider declarations say.
   * `kinds`: start limits per job kind (max running, starts per second; for the kind, per tenant,
   * per API key), replacing the kind's declared `limits` — enforced by workers, checked against
   * the runtime's capabilities by the gateway.
   */
  limits?: LimitOverrides & { providers?: ProviderLimits; kinds?: KindLimits };
  /**
   * How long ended jobs are kept, and the gateway's sweeper (docs/operations/retention.md):
   * `default`, `kinds`, `tenants` (per state: succeeded, failed, deadLettered, cancelled, stale;
   * tenant > kind > default > built-in), `archive`, `batchSize`, `pauseMs`, `maxBatches`,
   * `everyMs`, `enabled`. Checked at start (INVALID_CONFIG naming the field).
   */
  retention?: RetentionSettingsInput;
}

/** Declares `sluice.config.ts`; the handler map is type-checked against the job registry. */
export function defineConfig<
  R extends JobRegistry,
  H extends CheckedHandlers<R, H> = Record<never, never>,
>(config: SluiceConfig<R, H>): SluiceConfig<R, H> {
  return config;
}

export interface Settings {
  jobs: JobRegistry;
  handlers: Record<string, Record<string, unknown>>;
  database: string;
  blobsDir: string;
  /** Where blobs live: `SLUICE_BLOBS` (`s3://bucket/prefix`, a folder, `file://…`) or blobsDir. */
  blobs: string;
  /** The runtime, with the environment's overrides applied and checked. */
  runtime: NodeRuntime;
  port: number;
  hostname: string;
  workerPort: number | undefined;
  metricsPort: number | undefined;
  /** Interface of the gateway's metrics listener and the worker's probes (default 127.0.0.1). */
  metricsHost: string;
  workerId: string | undefined;
  concurrency: number;
  readBatch: number;
  leaseMs: number;
  deadAfterMs: number;
  drainMs: number;
  uploads: { maxBytes: number; ttlMs: number };
  origins: string[];
  rollout: Record<string, number>;
  limits: LimitOverrides;
  /** `limits.providers` of the config, for workers. */
  providerLimits: ProviderLimits;
  /** `limits.kinds` of the config, for workers and the gateway's capability check. */
  kindLimits: KindLimits;
  devApiKey: string | undefined;
  /** Key for signed download links; every gateway behind one load balancer needs the same. */
  signingSecret: string | undefined;
  /** `retention` of the config, checked. */
  retention: RetentionSettings;
  /** LOG_LEVEL, checked. */
  logLevel: LogLevel;
  /** How long to wait for the database and Redis at start, and the setting's name for messages. */
  connectWait: { ms: number; name: string };
  /** Whether the SQLite file's folder may be created: only for the default `.sluice/`. */
  createDatabaseFolder: boolean;
  /**
   * `SLUICE_DASHBOARD` / `--dashboard [path]`: the operator UI's mount path on the gateway, `off`
   * for none, undefined for the mode's default (`sluice dev`: /dashboard; `sluice gateway`: none).
   */
  dashboard: string | undefined;
}

type Env = Record<string, string | undefined>;

export function rolloutEnvName(kind: string): string {
  return `SLUICE_ROLLOUT_${kind.toUpperCase().replace(/[.-]/g, '_')}`;
}

/**
 * Config plus environment → the settings every command runs with. Throws INVALID_CONFIG naming
 * the variable or config field, or a UsageError naming the flag for values in `flags`.
 */
export function resolveSettings(
  config: SluiceConfig<JobRegistry, object>,
  env: Env = process.env,
  flags: FlagNames = {},
): Settings {
  const read = createSettingReader(env, flags);
  const runtime = resolveRuntime(config.runtime, env, (variable, value, rule) =>
    read.fail({ env: variable.name }, 'env', `${rule}, got "${value}"`),
  );
  const rollout: Record<string, number> = { ...(config.rollout ?? {}) };
  for (const kind of Object.keys(config.jobs)) {
    const raw = env[rolloutEnvName(kind)];
    if (raw !== undefined && raw !== '') rollout[kind] = Number(raw);
  }
  for (const [kind, pct] of Object.entries(rollout)) {
    if (!config.jobs[kind])
      throw new SluiceError('INVALID_CONFIG', `rollout names unknown kind "${kind}"`);
    assertRolloutPercent(pct);
  }
  const int = (name: string, field: string, fromConfig: number | undefined, max?: number) =>
    read.int({ env: name, field }, fromConfig, max === undefined ? {} : { min: 1, max }).value;
  const database = databaseOf(read, config.database);
  const settings: Settings = {
    jobs: config.jobs,
    handlers: (config.handlers ?? {}) as Settings['handlers'],
    database: database ?? DEFAULT_DATABASE,
    blobsDir: env.SLUICE_BLOBS_DIR || config.blobsDir || '.sluice/blobs',
    blobs: env.SLUICE_BLOBS || env.SLUICE_BLOBS_DIR || config.blobsDir || '.sluice/blobs',
    runtime,
    port: int('PORT', 'port', config.port) ?? 3000,
    hostname: env.HOST || config.hostname || '127.0.0.1',
    workerPort: int('SLUICE_WORKER_PORT', 'workerPort', config.workerPort),
    metricsPort: int('SLUICE_METRICS_PORT', 'metricsPort', config.metricsPort),
    metricsHost: env.SLUICE_METRICS_HOST || config.metricsHost || '127.0.0.1',
    workerId: env.SLUICE_WORKER_ID || config.workerId || undefined,
    concurrency: int('SLUICE_CONCURRENCY', 'concurrency', config.concurrency, 10_000) ?? 16,
    readBatch: config.readBatch ?? 32,
    leaseMs: int('SLUICE_LEASE_MS', 'leaseMs', config.leaseMs) ?? 30_000,
    deadAfterMs: int('SLUICE_DEAD_AFTER_MS', 'deadAfterMs', config.deadAfterMs) ?? 5000,
    drainMs: int('SLUICE_DRAIN_MS', 'drainMs', config.drainMs) ?? 30_000,
    uploads: {
      maxBytes: config.uploads?.maxBytes ?? 100 * 1024 * 1024,
      ttlMs: config.uploads?.ttlMs ?? 24 * 3600_000,
    },
    origins: config.origins ?? [],
    limits: gatewayLimits(config.limits),
    providerLimits: config.limits?.providers ?? {},
    kindLimits: config.limits?.kinds ?? {},
    rollout,
    devApiKey: env.SLUICE_API_KEY || undefined,
    signingSecret: signingSecret(env.SLUICE_SIGNING_SECRET),
    retention: parseRetentionSettings(config.retention),
    logLevel: logLevelOf(env.LOG_LEVEL),
    connectWait: connectWaitOf(read, config.connectWaitMs),
    createDatabaseFolder: database === undefined,
    dashboard: dashboardOf(env.SLUICE_DASHBOARD),
  };
  return settings;
}

/** `--dashboard` alone (commander's `true`) means the default path. */
function dashboardOf(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true') return '/dashboard';
  if (raw === 'off' || raw === 'false') return 'off';
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(raw)) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `SLUICE_DASHBOARD: a URL path such as /dashboard, or off; got "${raw}"`,
    );
  }
  return raw;
}

/** The gateway's part of `limits` (everything but the workers' `providers`). */
function gatewayLimits(limits: SluiceConfig['limits']): LimitOverrides {
  if (!limits) return {};
  const { providers: _workers, kinds: _kinds, ...gateway } = limits;
  return gateway;
}
