// `sluice jobs list|get|cancel|watch|signal`: a running gateway's jobs, as the API key's tenant
// sees them. `get` shows a child's parent and a parent's children.

import type { Command } from 'commander';
import { isTerminalState, type JobState } from '@sluice/contracts';
import type { JobWatchEvent } from '@sluice/client';
import { EXIT_CODES, UsageError, type ExitCode } from '../cli-errors.js';
import type { CliIo } from '../cli-io.js';
import { withClient, withGatewayOptions, type GatewayFlags } from './connect.js';
import { addJobActionCommands } from './job-actions.js';
import { detailLines } from './job-detail-lines.js';
import { jobLine, printJobs } from './job-lines.js';
import { pageOptions, withPageOptions, type PageFlags } from './page-options.js';
import { searchFilter, withSearchOptions, type SearchFlags } from './search-options.js';
import { progressFraction, renderProgressLine, type ProgressState } from './progress-bar.js';

export type SetExit = (code: ExitCode) => void;

export function addJobsCommands(program: Command, io: CliIo, setExit: SetExit): void {
  const jobs = program.command('jobs').description('list, inspect, cancel and watch jobs');

  withSearchOptions(
    withPageOptions(
      withGatewayOptions(
        jobs
          .command('list')
          .description('list jobs, newest first: by kind, state, tags, metadata, time, error text'),
      ),
    ),
  ).action(async (flags: GatewayFlags & PageFlags & SearchFlags) => {
    const filter = searchFilter(flags);
    const page = await withClient(flags, (c) =>
      c.jobs.search({ ...pageOptions(flags), ...filter }),
    );
    printJobs(io.out, page, flags.json, 'no jobs');
  });

  withGatewayOptions(
    jobs
      .command('get')
      .description('one job, with its parent and children')
      .argument('<id>', 'job id'),
  ).action(async (id: string, flags: GatewayFlags) => {
    const [job, children] = await withClient(flags, (c) =>
      Promise.all([c.jobs.get(id), c.jobs.children(id)]),
    );
    if (flags.json) {
      io.out(JSON.stringify({ ...job, children }));
      return;
    }
    io.out(jobLine(job));
    if (job.parentId) io.out(`  parent	${job.parentId}`);
    for (const child of children)
      io.out(`  child	${child.id}	${child.kind}	${child.state}${child.detached ? '\tdetached' : ''}`);
  });

  withGatewayOptions(
    jobs
      .command('signal')
      .description('send an event a job waits for (ctx.waitForEvent), its payload as JSON')
      .argument('<id>', 'job id')
      .argument('<name>', "event name, declared in the kind's events")
      .argument('[payload]', 'the payload as JSON (default null)')
      .option('--signal-id <id>', 'idempotency: the same id is stored once'),
  ).action(
    async (
      id: string,
      name: string,
      payload: string | undefined,
      flags: GatewayFlags & { signalId?: string },
    ) => {
      let value: unknown = null;
      if (payload !== undefined) {
        try {
          value = JSON.parse(payload);
        } catch {
          throw new UsageError('payload: not JSON');
        }
      }
      const r = await withClient(flags, (c) =>
        c.jobs.signal(id, name, value, flags.signalId ? { signalId: flags.signalId } : {}),
      );
      io.out(
        flags.json
          ? JSON.stringify(r)
          : `${r.id}\t${r.name}\t${r.delivered ? 'delivered' : 'kept'}${r.isDuplicate ? '\tduplicate' : ''}`,
      );
    },
  );

  addJobActionCommands(jobs, io);

  withGatewayOptions(
    jobs
      .command('show')
      .description('one job in full: attempts, units, provider calls with bills, assets, events')
      .argument('<id>', 'job id')
      .option('--tenant <id>', "another tenant's job (admin keys only)"),
  ).action(async (id: string, flags: GatewayFlags & { tenant?: string }) => {
    const detail = await withClient(flags, (c) =>
      c.jobs.detail(id, flags.tenant ? { tenant: flags.tenant } : {}),
    );
    if (flags.json) io.out(JSON.stringify(detail));
    else for (const line of detailLines(detail)) io.out(line);
  });

  withGatewayOptions(
    jobs.command('cancel').description('cancel a job').argument('<id>', 'job id'),
  ).action(async (id: string, flags: GatewayFlags) => {
    const r = await withClient(flags, (c) => c.job(id).cancel());
    io.out(flags.json ? JSON.stringify(r) : `${r.id}\t${r.state}`);
  });

  withGatewayOptions(
    jobs
      .command('watch')
      .description(
        'follow a job until it stops: a progress bar on a terminal, one line per event otherwise; exits 0 if it succeeded, 1 if it ended otherwise',
      )
      .argument('<id>', 'job id'),
  ).action(async (id: string, flags: GatewayFlags) => {
    const last = await withClient(flags, async (c) => {
      // One HTTP read first: an unknown job or an unreachable gateway fails at once, where the
      // subscription would keep reconnecting.
      await c.jobs.get(id);
      return watch(c.job(id).watch(), io, flags.json);
    });
    setExit(last === 'succeeded' ? EXIT_CODES.ok : EXIT_CODES.failure);
  });
}

function eventLine(e: JobWatchEvent): string {
  switch (e.type) {
    case 'progress':
      return `${e.seq}\tprogress\t${JSON.stringify(e.data)}`;
    case 'unit_done':
      return `${e.seq}\tunit_done\t${e.unitKey}${e.reused ? ' (reused)' : ''}`;
    case 'waiting':
      return `${e.seq}\twaiting\t${e.reason} by ${e.by}`;
    default:
      return `${e.seq}\t${e.type}\t${'to' in e ? e.to : ''}${'reason' in e && e.reason ? `\t${e.reason}` : ''}`;
  }
}

/** Prints the events; resolves with the state the job stopped in. */
async function watch(
  events: AsyncIterable<JobWatchEvent>,
  io: CliIo,
  json: boolean | undefined,
): Promise<JobState | undefined> {
  const bar = io.isTTY && !json;
  const p: ProgressState = { state: 'waiting', fraction: undefined, unitsDone: 0 };
  let state: JobState | undefined;
  let lastLine = '';
  let reason = '';
  for await (const e of events) {
    if ('to' in e) state = e.to;
    if ('reason' in e && e.reason) reason = e.reason;
    if (e.type === 'progress') p.fraction = progressFraction(e.data) ?? p.fraction;
    if (e.type === 'unit_done') p.unitsDone += 1;
    p.state = state ?? p.state;
    if (!bar) {
      io.out(json ? JSON.stringify(e) : eventLine(e));
      continue;
    }
    if (state === 'succeeded') p.fraction = 1;
    const line = renderProgressLine(p);
    if (line !== lastLine) io.write(`\r\x1b[2K${line}`);
    lastLine = line;
  }
  const why =
    state && isTerminalState(state) && state !== 'succeeded' && reason ? `  ${reason}` : '';
  if (bar) io.write(`\r\x1b[2K${lastLine}${why}\n`);
  return state;
}
