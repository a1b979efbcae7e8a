// The `sluice` command line, on commander: every subcommand has --help, every flag an environment
// variable. Actions never print errors or exit; they throw, and `main` formats (cli-errors.ts).

import { createRequire } from 'node:module';
import { API_KEY_SCOPES } from '@sluice/contracts';
import { Command } from 'commander';
import { EXIT_CODES, type ExitCode } from './cli-errors.js';
import type { CliIo } from './cli-io.js';
import { addAuditCommands } from './client-commands/audit.js';
import { addBulkCommands } from './client-commands/bulk.js';
import { addDeadLetterCommands } from './client-commands/dead-letters.js';
import { addJobsCommands } from './client-commands/jobs.js';
import { addReviewCommands } from './client-commands/review.js';
import { addDashboardCommand } from './commands/dashboard.js';
import type { KeysArgs } from './commands/keys.js';
import type { ServeMode } from './commands/serve.js';
import { resolveSettings, type Settings } from './define-config.js';
import { findConfig } from './load-config.js';
import {
  envWithFlags,
  flagNames,
  withDatabaseOptions,
  withServeOptions,
} from './server-options.js';

// Command modules load when their command runs: `sluice --help` or a usage error should not wait
// for the gateway, the worker and the database drivers to load.
async function runKeys(settings: Settings, args: KeysArgs, out: (line: string) => void) {
  const keys = await import('./commands/keys.js');
  return keys.runKeys(settings, args, out);
}

/** LOG_LEVEL=debug: what the command runs with, secrets left out (the database by address). */
async function logSettings(settings: Settings, config: string): Promise<void> {
  if (settings.logLevel !== 'debug' && settings.logLevel !== 'trace') return;
  const [{ createLogger }, { describeDatabaseUrl }] = await Promise.all([
    import('@sluice/gateway'),
    import('@sluice/storage/database-url'),
  ]);
  createLogger({ service: 'cli', level: settings.logLevel }).debug?.('settings', {
    config,
    database: describeDatabaseUrl(settings.database),
    runtime: settings.runtime,
    blobs: settings.blobs.startsWith('s3://') ? 's3' : settings.blobs,
    port: settings.port,
    hostname: settings.hostname,
    metricsPort: settings.metricsPort,
    metricsHost: settings.metricsHost,
    workerPort: settings.workerPort,
    concurrency: settings.concurrency,
    leaseMs: settings.leaseMs,
    drainMs: settings.drainMs,
    connectWaitMs: settings.connectWait.ms,
  });
}

export interface ProgramHooks {
  /** Resolves when the process is asked to stop (SIGTERM/SIGINT); injected for tests. */
  untilStopped(): Promise<void>;
}

/**
 * Commander reads `.env()` variables from `process.env`; commands read the injected `io.env`, so
 * a flag's environment value is taken from there (a flag given on the command line wins).
 */
function applyEnv(cmd: Command, env: Record<string, string | undefined>): void {
  for (const option of cmd.options) {
    if (!option.envVar) continue;
    const key = option.attributeName();
    const source = cmd.getOptionValueSource(key);
    if (source === 'cli') continue;
    const value = env[option.envVar];
    if (value !== undefined && value !== '') cmd.setOptionValueWithSource(key, value, 'env');
    else if (source === 'env') cmd.setOptionValueWithSource(key, option.defaultValue, 'default');
  }
}

export function createProgram(io: CliIo, hooks: ProgramHooks, setExit: (c: ExitCode) => void) {
  const program = new Command('sluice')
    .description('Retry-safe jobs: run the gateway and workers, manage keys, inspect jobs.')
    // ../package.json from src/ and from dist/ alike.
    .version((createRequire(import.meta.url)('../package.json') as { version: string }).version)
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.write(s),
      writeErr: (s) => io.writeErr(s),
      // Errors are printed once, by main's formatter.
      outputError: () => {},
    })
    .hook('preAction', (_program, action) => applyEnv(action, io.env));

  async function settingsOf(cmd: Command): Promise<Settings> {
    const env = envWithFlags(io.env, cmd);
    const path = findConfig(io.cwd, env.SLUICE_CONFIG || undefined);
    const { loadConfig } = await import('./load-config.js');
    const settings = resolveSettings(await loadConfig(path), env, flagNames(cmd));
    await logSettings(settings, path);
    return settings;
  }

  const serve = (mode: ServeMode, description: string) =>
    withServeOptions(program.command(mode).description(description)).action(
      async (_flags: unknown, cmd: Command) => {
        const settings = await settingsOf(cmd);
        const { runServe } = await import('./commands/serve.js');
        const served = await runServe(mode, settings, io.out);
        await hooks.untilStopped();
        io.out('draining…');
        await served.stop(settings.drainMs);
        io.out(`sluice ${mode}: stopped`);
      },
    );
  serve('dev', 'gateway and worker in one process (prints a dev API key)');
  serve('gateway', 'the gateway: accept, status, watch, uploads');
  serve('worker', 'a worker: runs the jobs of the configured runtime');

  withDatabaseOptions(program.command('migrate').description('apply database migrations')).action(
    async (_flags: unknown, cmd: Command) => {
      const settings = await settingsOf(cmd);
      const { runMigrate } = await import('./commands/migrate.js');
      await runMigrate(settings, io.out);
    },
  );

  const keys = program.command('keys').description('API keys: create, list, revoke');
  withDatabaseOptions(
    keys
      .command('create')
      .description('create a key for a tenant (printed once; only its hash is stored)')
      .requiredOption('--tenant <name>', 'tenant the key acts for')
      .option('--label <text>', 'a note to recognise the key by')
      .option(
        '--scope <list>',
        `comma-separated: ${API_KEY_SCOPES.join(', ')} (default jobs:submit,jobs:read)`,
      )
      .option('--expires <when>', 'a duration (30d, 12h, 90m) or an ISO date; default never'),
  ).action(
    async (
      flags: { tenant: string; label?: string; scope?: string; expires?: string },
      cmd: Command,
    ) =>
      runKeys(
        await settingsOf(cmd),
        {
          action: 'create',
          tenant: flags.tenant,
          label: flags.label,
          scope: flags.scope,
          expires: flags.expires,
        },
        io.out,
      ),
  );
  withDatabaseOptions(
    keys.command('list').description('list keys').option('--tenant <name>', 'only this tenant'),
  ).action(async (flags: { tenant?: string }, cmd: Command) =>
    runKeys(await settingsOf(cmd), { action: 'list', tenant: flags.tenant }, io.out),
  );
  withDatabaseOptions(
    keys.command('revoke').description('revoke a key').argument('<id>', 'key id'),
  ).action(async (id: string, _flags: unknown, cmd: Command) =>
    runKeys(await settingsOf(cmd), { action: 'revoke', id }, io.out),
  );

  addJobsCommands(program, io, setExit);
  addDeadLetterCommands(program, io);
  addReviewCommands(program, io);
  addAuditCommands(program, io);
  addBulkCommands(program, io, setExit);
  addDashboardCommand(program, io, hooks.untilStopped);

  program.addHelpText(
    'after',
    `
Exit codes: ${EXIT_CODES.ok} ok, ${EXIT_CODES.failure} failure, ${EXIT_CODES.usage} usage error, ${EXIT_CODES.config} config error, ${EXIT_CODES.unavailable} service unavailable (database, Redis, gateway, port in use), ${EXIT_CODES.refused} refused by the gateway.
Flags win over environment variables, which win over sluice.config.ts.`,
  );
  return program;
}
