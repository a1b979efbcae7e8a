// The flags of the commands that talk to a running gateway (jobs, dead-letters, review), and the
// untyped client they use: an operator's command line knows job ids, not the job registry.

import { Option, type Command } from 'commander';
import type { SluiceClient } from '@sluice/client';
import { isSluiceError, SluiceError, type JobRegistry } from '@sluice/contracts';
import { UsageError } from '../cli-errors.js';

export interface GatewayFlags {
  url: string;
  apiKey?: string | undefined;
  json?: boolean | undefined;
}

export function withGatewayOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--url <url>', 'gateway base URL')
        .env('SLUICE_URL')
        .default('http://127.0.0.1:3000'),
    )
    .addOption(new Option('--api-key <key>', 'API key (required)').env('SLUICE_API_KEY'))
    .option('--json', 'print JSON instead of text');
}

export async function withClient<T>(
  flags: GatewayFlags,
  fn: (client: SluiceClient<JobRegistry>) => Promise<T>,
): Promise<T> {
  if (!flags.apiKey)
    throw new UsageError('an API key is needed: pass --api-key or set SLUICE_API_KEY');
  const [{ createSluiceClient }, { default: WebSocket }] = await Promise.all([
    import('@sluice/client'),
    import('ws'),
  ]);
  const client = createSluiceClient<JobRegistry>({
    url: flags.url,
    apiKey: flags.apiKey,
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    // One short retry window: a command line should fail fast when the gateway is away.
    reconnect: { minMs: 100, maxMs: 1000 },
  });
  try {
    return await fn(client);
  } catch (error) {
    // The client says "fetch failed"; say which gateway (the cause keeps the system error).
    if (isSluiceError(error) && error.code === 'UNAVAILABLE' && error.details?.httpStatus === 0)
      throw new SluiceError('UNAVAILABLE', `cannot reach the gateway at ${flags.url}`, {
        cause: error,
      });
    throw error;
  } finally {
    await client.close().catch(() => {});
  }
}
