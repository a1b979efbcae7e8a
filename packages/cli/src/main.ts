// The `sluice` command.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isSluiceError } from '@sluice/contracts';
import { resolveSettings } from './define-config.js';
import { findConfig, loadConfig } from './load-config.js';
import { runKeys } from './commands/keys.js';
import { runMigrate } from './commands/migrate.js';
import { runServe, type ServeMode } from './commands/serve.js';

const USAGE = `usage: sluice <command> [--config sluice.config.ts]
  dev                       gateway and embedded worker in one process
  gateway                   the gateway (PORT, DATABASE_URL, SLUICE_RUNTIME, REDIS_URL)
  worker                    a worker (SLUICE_WORKER_PORT probes/metrics, SLUICE_WORKER_ID stable name)
  migrate                   apply database migrations
  keys create --tenant <t>  create an API key (shown once)
  keys list [--tenant <t>]  list keys
  keys revoke <id>          revoke a key`;

export async function main(
  argv: string[],
  out = (l: string) => process.stdout.write(`${l}\n`),
): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      tenant: { type: 'string' },
      label: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (!command || values.help) {
    out(USAGE);
    return command ? 0 : 1;
  }
  const settings = resolveSettings(await loadConfig(findConfig(process.cwd(), values.config)));
  switch (command) {
    case 'migrate':
      await runMigrate(settings, out);
      return 0;
    case 'keys':
      await runKeys(
        settings,
        { action: rest[0], tenant: values.tenant, label: values.label, id: rest[1] },
        out,
      );
      return 0;
    case 'dev':
    case 'gateway':
    case 'worker': {
      const served = await runServe(command as ServeMode, settings, out);
      await new Promise<void>((resolve) => {
        let stopping = false;
        const onSignal = () => {
          if (stopping) process.exit(1);
          stopping = true;
          out('draining…');
          served.stop().then(resolve, (error: unknown) => {
            process.stderr.write(`shutdown failed: ${String(error)}\n`);
            process.exit(1);
          });
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
      return 0;
    }
    default:
      out(`unknown command "${command}"\n${USAGE}`);
      return 1;
  }
}

// Run when executed directly (bin or tsx), not when imported.
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `sluice: ${isSluiceError(error) ? `${error.code}: ${error.message}` : String(error instanceof Error ? (error.stack ?? error) : error)}\n`,
      );
      process.exit(1);
    },
  );
}
