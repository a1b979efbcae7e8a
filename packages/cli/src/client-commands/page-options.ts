// --limit, --cursor and --kind, checked before anything is sent (a bad value is a usage error).

import { Option, type Command } from 'commander';
import { UsageError } from '../cli-errors.js';

export interface PageFlags {
  limit?: string | undefined;
  cursor?: string | undefined;
  kind?: string | undefined;
}

export function withPageOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--limit <n>', 'how many (1–100)').default('20'))
    .option('--cursor <cursor>', 'continue after a previous page')
    .option('--kind <kind>', 'only this job kind');
}

export function pageOptions(flags: PageFlags) {
  const limit = Number(flags.limit ?? '20');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new UsageError(`--limit must be an integer from 1 to 100, got "${flags.limit}"`);
  return {
    limit,
    ...(flags.cursor ? { cursor: flags.cursor } : {}),
    ...(flags.kind ? { kind: flags.kind } : {}),
  };
}
