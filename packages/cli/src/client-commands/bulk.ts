// `sluice bulk <action> [filters] --dry-run | --key <k> [--note] [--wait]`, `sluice bulk status
// <id>`, `sluice bulk list`: an action over every job the filters match (a key with
// `jobs:manage`). The dry run prints how many jobs the action can move; a start prints the
// operation, and with --wait follows its progress until it ends (exit 1 if it failed).

import { Option, type Command } from 'commander';
import { BULK_ACTIONS, type BulkAction, type BulkOperationView } from '@sluice/contracts';
import { EXIT_CODES } from '../cli-errors.js';
import type { CliIo } from '../cli-io.js';
import { withClient, withGatewayOptions, type GatewayFlags } from './connect.js';
import type { SetExit } from './jobs.js';
import { searchFilter, withSearchOptions, type SearchFlags } from './search-options.js';

function line(op: BulkOperationView): string {
  return `${op.id}\t${op.action}\t${op.state}\t${op.processed}/${op.total} processed\t${op.applied} applied\t${op.skipped} skipped\t${op.failed} failed`;
}

interface StartFlags extends GatewayFlags, SearchFlags {
  dryRun?: boolean;
  key?: string;
  note?: string;
  fromUnit?: string;
  wait?: boolean;
}

export function addBulkCommands(program: Command, io: CliIo, setExit: SetExit): void {
  const bulk = program
    .command('bulk')
    .description('act on every job a filter matches: cancel, requeue, rerun, approve, discard');

  withSearchOptions(
    withGatewayOptions(
      bulk
        .command('run')
        .description('a dry run (--dry-run) or a tracked operation over the filter')
        .addOption(
          new Option('--action <action>', 'what to do').choices(BULK_ACTIONS).makeOptionMandatory(),
        )
        .option('--dry-run', 'only count the jobs the action can move now')
        .option(
          '--key <key>',
          'operation key: the same key is the same operation (required to start)',
        )
        .option('--note <text>', 'why (required to approve or discard; in the audit log)')
        .option('--from-unit <key>', 'for rerun: the unit to run again from')
        .option('--wait', 'follow the operation until it ends'),
    ),
    { kind: true },
  ).action(async (flags: StartFlags & { action: BulkAction }) => {
    const filter = searchFilter(flags);
    await withClient(flags, async (c) => {
      if (flags.dryRun) {
        const p = await c.bulk.preview(flags.action, filter);
        io.out(flags.json ? JSON.stringify(p) : `${p.count} job(s) would be ${flags.action}d`);
        return;
      }
      if (!flags.key) {
        io.err('sluice: --key <key> is needed to start an operation (or pass --dry-run)');
        setExit(EXIT_CODES.usage);
        return;
      }
      let op = await c.bulk.start({
        action: flags.action,
        filter,
        operationKey: flags.key,
        note: flags.note,
        fromUnit: flags.fromUnit,
      });
      io.out(flags.json ? JSON.stringify(op) : line(op));
      while (flags.wait && op.state === 'running') {
        await new Promise((r) => setTimeout(r, 500));
        op = await c.bulk.get(op.id);
        if (!flags.json) io.out(line(op));
      }
      if (flags.wait && flags.json) io.out(JSON.stringify(op));
      if (op.state === 'failed') setExit(EXIT_CODES.failure);
    });
  });

  withGatewayOptions(
    bulk.command('status').description('one operation’s progress').argument('<id>', 'operation id'),
  ).action(async (id: string, flags: GatewayFlags) => {
    const op = await withClient(flags, (c) => c.bulk.get(id));
    io.out(flags.json ? JSON.stringify(op) : line(op));
  });

  withGatewayOptions(
    bulk.command('list').description('the tenant’s operations, newest first'),
  ).action(async (flags: GatewayFlags) => {
    const page = await withClient(flags, (c) => c.bulk.list());
    if (flags.json) return io.out(JSON.stringify(page));
    if (page.items.length === 0) io.out('no bulk operations');
    for (const op of page.items) io.out(line(op));
  });
}
