// `sluice audit [list] | export`: the tenant's audit log (a key with `jobs:manage`). `list` prints
// one line per entry (newest first), `export` writes every matching entry as JSON lines to
// stdout, streamed from the gateway.

import { Option, type Command } from 'commander';
import { AUDIT_ACTIONS, type AuditEntry } from '@sluice/contracts';
import { UsageError } from '../cli-errors.js';
import type { CliIo } from '../cli-io.js';
import { withClient, withGatewayOptions, type GatewayFlags } from './connect.js';

interface AuditFlags {
  action?: string | undefined;
  keyId?: string | undefined;
  target?: string | undefined;
  after?: string | undefined;
  before?: string | undefined;
}

function withAuditFilters(cmd: Command): Command {
  return cmd
    .addOption(new Option('--action <action>', 'only this action').choices(AUDIT_ACTIONS))
    .option('--key-id <id>', 'only actions of this API key')
    .option('--target <id>', 'only actions on this job, key, schedule or bulk operation')
    .option('--after <iso>', 'at or after this instant')
    .option('--before <iso>', 'before this instant');
}

function filterOf(flags: AuditFlags) {
  const instant = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const ms = Date.parse(v);
    if (!Number.isFinite(ms))
      throw new UsageError(`--${flag} must be an ISO 8601 instant, got "${v}"`);
    return new Date(ms).toISOString();
  };
  const f = {
    action: flags.action as AuditEntry['action'] | undefined,
    keyId: flags.keyId,
    target: flags.target,
    after: instant('after', flags.after),
    before: instant('before', flags.before),
  };
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as typeof f;
}

function line(e: AuditEntry): string {
  const who = e.keyLabel ? `${e.keyId} (${e.keyLabel})` : (e.keyId ?? String(e.details.via ?? '-'));
  return `${e.at}\t${e.action}\t${e.target ?? '-'}\t${who}${e.note ? `\t${e.note}` : ''}`;
}

export function addAuditCommands(program: Command, io: CliIo): void {
  const audit = program
    .command('audit')
    .description('who did what and why: list (the default) and export as JSON lines');

  withAuditFilters(
    withGatewayOptions(audit.command('list', { isDefault: true }).description('newest first')),
  )
    .addOption(new Option('--limit <n>', 'how many (1–1000)').default('50'))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(async (flags: GatewayFlags & AuditFlags & { limit: string; cursor?: string }) => {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new UsageError(`--limit must be an integer from 1 to 1000, got "${flags.limit}"`);
      const page = await withClient(flags, (c) =>
        c.audit.list({
          ...filterOf(flags),
          limit,
          ...(flags.cursor ? { cursor: flags.cursor } : {}),
        }),
      );
      if (flags.json) return io.out(JSON.stringify(page));
      if (page.items.length === 0) io.out('no audit entries');
      for (const e of page.items) io.out(line(e));
      if (page.nextCursor) io.out(`more: --cursor ${page.nextCursor}`);
    });

  withAuditFilters(
    withGatewayOptions(audit.command('export').description('every matching entry as JSON lines')),
  ).action(async (flags: GatewayFlags & AuditFlags) => {
    await withClient(flags, async (c) => {
      const body = await c.audit.export(filterOf(flags));
      const decoder = new TextDecoder();
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>)
        io.write(decoder.decode(chunk, { stream: true }));
    });
  });
}
