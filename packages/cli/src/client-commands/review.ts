// `sluice review [list] | approve <id> --note | discard <id> --note`: jobs parked in needs_review
// and a person's decision on them (the gateway's review.* procedures; the note is recorded).

import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { withClient, withGatewayOptions, type GatewayFlags } from './connect.js';
import { printJobs } from './job-lines.js';
import { pageOptions, withPageOptions, type PageFlags } from './page-options.js';

export function addReviewCommands(program: Command, io: CliIo): void {
  const review = program
    .command('review')
    .description('jobs that need a person: list (the default), approve, discard');

  withPageOptions(
    withGatewayOptions(review.command('list', { isDefault: true }).description('list them')),
  ).action(async (flags: GatewayFlags & PageFlags) => {
    const page = await withClient(flags, (c) => c.review.list(pageOptions(flags)));
    printJobs(io.out, page, flags.json, 'no jobs need review');
  });

  withGatewayOptions(
    review
      .command('approve')
      .description('run it again; calls left in billing doubt are authorised once more')
      .argument('<id>', 'job id')
      .requiredOption('--note <text>', 'why (recorded with the decision)'),
  ).action(async (id: string, flags: GatewayFlags & { note: string }) => {
    const handle = await withClient(flags, (c) => c.review.approve(id, flags.note));
    const { authorised } = handle;
    io.out(
      flags.json
        ? JSON.stringify({ id: handle.id, state: 'queued', authorised })
        : `${handle.id}\tqueued\t${authorised} call(s) authorised`,
    );
  });

  withGatewayOptions(
    review
      .command('discard')
      .description('fail it for good, with the note as its reason')
      .argument('<id>', 'job id')
      .requiredOption('--note <text>', 'why (recorded as the reason)'),
  ).action(async (id: string, flags: GatewayFlags & { note: string }) => {
    const job = await withClient(flags, (c) => c.review.discard(id, flags.note));
    io.out(flags.json ? JSON.stringify(job) : `${job.id}\t${job.state}`);
  });
}
