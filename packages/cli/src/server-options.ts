// The flags of the commands that open the database (dev, gateway, worker, migrate, keys). Each
// flag has an environment variable; precedence is flag, then environment, then sluice.config.ts.
// Flags are folded into the environment that `resolveSettings` reads, so there is one reader.

import { Option, type Command } from 'commander';

/** flag attribute → environment variable. */
const DATABASE_FLAGS = {
  config: 'SLUICE_CONFIG',
  database: 'DATABASE_URL',
} as const;

const SERVE_FLAGS = {
  runtime: 'SLUICE_RUNTIME',
  redisUrl: 'REDIS_URL',
  port: 'PORT',
  host: 'HOST',
  blobsDir: 'SLUICE_BLOBS_DIR',
  workerPort: 'SLUICE_WORKER_PORT',
  workerId: 'SLUICE_WORKER_ID',
  concurrency: 'SLUICE_CONCURRENCY',
  leaseMs: 'SLUICE_LEASE_MS',
  apiKey: 'SLUICE_API_KEY',
} as const;

const ALL = { ...DATABASE_FLAGS, ...SERVE_FLAGS };

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
    );
}

/** Everything `dev`, `gateway` and `worker` read. */
export function withServeOptions(cmd: Command): Command {
  return withDatabaseOptions(cmd)
    .addOption(
      opt('--runtime <name>', 'embedded | valkey-streams (default embedded)', 'SLUICE_RUNTIME'),
    )
    .addOption(opt('--redis-url <url>', 'Valkey/Redis for the valkey-streams runtime', 'REDIS_URL'))
    .addOption(opt('--port <n>', 'gateway port (default 3000)', 'PORT'))
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
      opt('--worker-id <id>', 'stable worker name (default hostname-pid)', 'SLUICE_WORKER_ID'),
    )
    .addOption(
      opt('--concurrency <n>', 'jobs run at once per worker (default 16)', 'SLUICE_CONCURRENCY'),
    )
    .addOption(opt('--lease-ms <ms>', 'job lease length (default 30000)', 'SLUICE_LEASE_MS'))
    .addOption(
      opt('--api-key <key>', 'a dev API key the gateway accepts (tenant "dev")', 'SLUICE_API_KEY'),
    );
}

/** The environment with the given flags written over it. */
export function envWithFlags(
  env: Record<string, string | undefined>,
  opts: Record<string, unknown>,
): Record<string, string | undefined> {
  const merged = { ...env };
  for (const [attr, name] of Object.entries(ALL)) {
    const value = opts[attr];
    if (typeof value === 'string') merged[name] = value;
  }
  return merged;
}
