// `sluice dashboard --gateway <url>`: the operator UI on a port of its own, same-origin with the
// API because it proxies /trpc, /v1 and the WebSocket to the gateway (@sluice/dashboard).

import { Option, type Command } from 'commander';
import { UsageError } from '../cli-errors.js';
import type { CliIo } from '../cli-io.js';

interface DashboardFlags {
  gateway: string;
  port: string;
  host: string;
}

export function addDashboardCommand(
  program: Command,
  io: CliIo,
  untilStopped: () => Promise<void>,
): void {
  program
    .command('dashboard')
    .description('serve the operator UI on its own port, proxying the API to a gateway')
    .addOption(
      new Option('--gateway <url>', 'the gateway base URL')
        .env('SLUICE_URL')
        .default('http://127.0.0.1:3000'),
    )
    .addOption(
      new Option('--port <n>', 'dashboard port (0: any free one)')
        .env('SLUICE_DASHBOARD_PORT')
        .default('4100'),
    )
    .addOption(
      new Option('--host <host>', 'dashboard interface')
        .env('SLUICE_DASHBOARD_HOST')
        .default('127.0.0.1'),
    )
    .action(async (flags: DashboardFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535)
        throw new UsageError(`--port: a port number, got "${flags.port}"`);
      if (!/^https?:\/\//.test(flags.gateway))
        throw new UsageError(`--gateway: an http(s) URL, got "${flags.gateway}"`);
      const { serveDashboard } = await import('@sluice/dashboard');
      const running = await serveDashboard({ gateway: flags.gateway, port, hostname: flags.host });
      io.out(`dashboard on ${running.url}/ (proxying the API to ${flags.gateway})`);
      await untilStopped();
      await running.close();
      io.out('sluice dashboard: stopped');
    });
}
