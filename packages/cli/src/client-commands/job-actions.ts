// `sluice jobs requeue <id>` and `sluice jobs rerun <id> [--from-unit u]`: an operator's way back
// for one ended job (a key with `jobs:manage`). Both keep the provider-call ledger, so nothing
// already billed is billed again; the note goes to the audit log.

import type { Command } from 'commander';
import type { OperatorActionResult } from '@sluice/contracts';
import type { CliIo } from '../cli-io.js';
import { withClient, withGatewayOptions, type GatewayFlags } from './connect.js';

function line(r: OperatorActionResult): string {
  return `${r.id}\t${r.state}${r.unitsDropped ? `\t${r.unitsDropped} checkpoint(s) dropped` : ''}`;
}

export function addJobActionCommands(jobs: Command, io: CliIo): void {
  withGatewayOptions(
    jobs
      .command('requeue')
      .description(
        'put a failed or dead-lettered job back in the queue with a fresh attempt budget',
      )
      .argument('<id>', 'job id')
      .option('--note <text>', 'why (recorded in the audit log)'),
  ).action(async (id: string, flags: GatewayFlags & { note?: string }) => {
    const r = await withClient(flags, (c) => c.jobs.requeue(id, { note: flags.note }));
    io.out(flags.json ? JSON.stringify(r) : line(r));
  });

  withGatewayOptions(
    jobs
      .command('rerun')
      .description(
        'run an ended job again: checkpoints reused (but --from-unit and later), billed calls never billed again',
      )
      .argument('<id>', 'job id')
      .option('--from-unit <key>', 'run this unit and every unit checkpointed after it again')
      .option('--note <text>', 'why (recorded in the audit log)'),
  ).action(async (id: string, flags: GatewayFlags & { note?: string; fromUnit?: string }) => {
    const r = await withClient(flags, (c) =>
      c.jobs.rerun(id, { note: flags.note, fromUnit: flags.fromUnit }),
    );
    io.out(flags.json ? JSON.stringify(r) : line(r));
  });
}
