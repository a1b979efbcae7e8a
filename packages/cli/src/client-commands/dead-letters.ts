// `sluice dead-letters [list] | retry <id>`. The gateway requeues a dead-lettered job with a fresh
// attempt budget; it has no discard: a dead-lettered job is already final for its attempts, and
// its history is kept.

import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { withClient, withGatewayOptions, type GatewayFlags } from './connect.js';
import { printJobs } from './job-lines.js';
import { pageOptions, withPageOptions, type PageFlags } from './page-options.js';

export function addDeadLetterCommands(program: Command, io: CliIo): void {
  const dl = program
    .command('dead-letters')
    .description('dead-lettered jobs: list (the default) and retry');

  const list = async (flags: GatewayFlags & PageFlags) => {
    const page = await withClient(flags, (c) => c.deadLetters.list(pageOptions(flags)));
    printJobs(io.out, page, flags.json, 'no dead-lettered jobs');
  };
  withPageOptions(
    withGatewayOptions(dl.command('list', { isDefault: true }).description('list them')),
  ).action(list);

  withGatewayOptions(
    dl
      .command('retry')
      .description('requeue a dead-lettered job with a fresh attempt budget')
      .argument('<id>', 'job id'),
  ).action(async (id: string, flags: GatewayFlags) => {
    const handle = await withClient(flags, (c) => c.deadLetters.requeue(id));
    io.out(
      flags.json ? JSON.stringify({ id: handle.id, state: 'queued' }) : `${handle.id}\tqueued`,
    );
  });
}
