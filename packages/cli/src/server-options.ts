// The flags of the commands that open the database (dev, gateway, worker, migrate, keys). Each
// flag has an environment variable; precedence is flag, then environment, then sluice.config.ts.
// Flags are folded into the environment that `resolveSettings` reads, so there is one reader.

import { Option, type Command } from 'commander';
import { RUNTIME_NAMES, runtimeEnvVars } from './runtimes/registry.js';

function opt(flags: string, description: string, env: string): Option {
  return new Option(flags, description).env(env);
}

/** --config and --database: every command that opens the database. */
export function withDatabaseOptions(cmd: Command): Command {
  return cmd
    .addOption(
      opt('-c, --config <file>', 'config file (default ./sluice.config.ts)', 'SLUICE_CONFIG'),
    )
    .addOption(
      opt(
        '--database <url>',
        'postgres://… or a SQLite file (default .sluice/sluice.db)',
        'DATABASE_URL',
      ),
    )
    .addOption(
      opt(
        '--connect-wait-ms <ms>',
        'how long to wait for the database and Redis at start before exiting 4 (default 30000)',
        'SLUICE_CONNECT_WAIT_MS',
      ),
    );
}

/** Everything `dev`, `gateway` and `worker` read. */
export function withServeOptions(cmd: Command): Command {
  withDatabaseOptions(cmd).addOption(
    opt('--runtime <name>', `${RUNTIME_NAMES.join(' | ')} (default embedded)`, 'SLUICE_RUNTIME'),
  );
  // The flags the runtimes declare for their options (secrets have none: environment only).
  for (const v of runtimeEnvVars()) if (v.flag) cmd.addOption(opt(v.flag, v.description, v.name));
  return cmd
    .addOption(opt('--port <n>', 'gateway port (default 3000)', 'PORT'))
    .addOption(
      opt(
        '--dashboard [path]',
        'serve the operator UI on the gateway at this path (default /dashboard; on in dev, off in gateway; "off" for none)',
        'SLUICE_DASHBOARD',
      ),
    )
    .addOption(opt('--host <host>', 'gateway interface (default 127.0.0.1)', 'HOST'))
    .addOption(
      opt('--blobs-dir <dir>', 'local blob folder (default .sluice/blobs)', 'SLUICE_BLOBS_DIR'),
    )
    .addOption(
      opt(
        '--worker-port <n>',
        'worker probes/metrics port (0 = any free port)',
        'SLUICE_WORKER_PORT',
      ),
    )
    .addOption(
      opt(
        '--metrics-port <n>',
        'serve the gateway /metrics on this port, unauthenticated, instead of on the API port behind the metrics:read scope',
        'SLUICE_METRICS_PORT',
      ),
    )
    .addOption(
      opt(
        '--metrics-host <host>',
        'interface of the metrics port and the worker probes port (default 127.0.0.1)',
        'SLUICE_METRICS_HOST',
      ),
    )
    .addOption(
      opt('--worker-id <id>', 'stable worker name (default hostname-pid)', 'SLUICE_WORKER_ID'),
    )
    .addOption(
      opt('--concurrency <n>', 'jobs run at once per worker (default 16)', 'SLUICE_CONCURRENCY'),
    )
    .addOption(opt('--lease-ms <ms>', 'job lease length (default 30000)', 'SLUICE_LEASE_MS'))
    .addOption(
      opt(
        '--dead-after-ms <ms>',
        'a worker silent this long is dead and its jobs are taken over (default 5000)',
        'SLUICE_DEAD_AFTER_MS',
      ),
    )
    .addOption(
      opt(
        '--drain-ms <ms>',
        'on SIGTERM, how long running jobs may finish before they are handed back (default 30000)',
        'SLUICE_DRAIN_MS',
      ),
    )
    .addOption(
      opt('--api-key <key>', 'a dev API key the gateway accepts (tenant "dev")', 'SLUICE_API_KEY'),
    );
}

/**
 * The environment with the command's flags written over it: every option that has an environment
 * variable contributes its value (given on the command line, or already taken from that variable).
 */
export function envWithFlags(
  env: Record<string, string | undefined>,
  cmd: Command,
): Record<string, string | undefined> {
  const merged = { ...env };
  const values = cmd.opts<Record<string, unknown>>();
  for (const option of cmd.options) {
    const value = values[option.attributeName()];
    // `--dashboard` without a path is `true`: its variable then says "true" (the default path).
    if (option.envVar && (typeof value === 'string' || value === true))
      merged[option.envVar] = String(value);
  }
  return merged;
}

/** For each environment variable a flag set on this command line: the flag (`--port`). */
export function flagNames(cmd: Command): Record<string, string> {
  const names: Record<string, string> = {};
  for (const option of cmd.options) {
    if (option.envVar && cmd.getOptionValueSource(option.attributeName()) === 'cli')
      names[option.envVar] = option.long ?? option.flags;
  }
  return names;
}
