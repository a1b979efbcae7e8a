// The filter flags of `sluice jobs list` (and of the bulk commands, which act on what a list
// shows): --tag, --meta, --state, --version, --tenant, time ranges and --error, checked before
// anything is sent (a bad value is a usage error naming the flag).

import type { Command } from 'commander';
import { isJobState, JOB_STATES, type JobFilter, type JobState } from '@sluice/contracts';
import { UsageError } from '../cli-errors.js';

export interface SearchFlags {
  tag?: string[] | undefined;
  meta?: string[] | undefined;
  state?: string[] | undefined;
  kind?: string | undefined;
  version?: string | undefined;
  tenant?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  finishedAfter?: string | undefined;
  finishedBefore?: string | undefined;
  error?: string | undefined;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function withSearchOptions(cmd: Command, opts: { kind?: boolean } = {}): Command {
  if (opts.kind) cmd.option('--kind <kind>', 'only this job kind');
  return cmd
    .option('--tag <tag>', 'only jobs with this tag (repeat: every one)', collect)
    .option(
      '--meta <key[=value]>',
      'only jobs whose metadata has key (=value) (repeatable)',
      collect,
    )
    .option(
      '--state <state>',
      `only jobs in this state (repeatable): ${JOB_STATES.join(', ')}`,
      collect,
    )
    .option('--version <version>', 'only this version (v1, v2, …)')
    .option('--tenant <id>', "another tenant's jobs, or * for every tenant (admin keys only)")
    .option('--created-after <iso>', 'created at or after this instant')
    .option('--created-before <iso>', 'created before this instant')
    .option('--finished-after <iso>', 'finished at or after this instant')
    .option('--finished-before <iso>', 'finished before this instant')
    .option('--error <text>', 'text in the error or reason (case-insensitive)');
}

function instant(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms))
    throw new UsageError(`--${flag} must be an ISO 8601 instant, got "${value}"`);
  return new Date(ms).toISOString();
}

/** The flags as the gateway's filter (undefined fields left out). */
export function searchFilter(flags: SearchFlags): JobFilter {
  const states = (flags.state ?? []).map((s): JobState => {
    if (!isJobState(s))
      throw new UsageError(`--state must be one of ${JOB_STATES.join(', ')}, got "${s}"`);
    return s;
  });
  const metadata = (flags.meta ?? []).map((m) => {
    const at = m.indexOf('=');
    const key = at < 0 ? m : m.slice(0, at);
    if (!key) throw new UsageError(`--meta needs a key (key or key=value), got "${m}"`);
    return at < 0 ? { key } : { key, value: m.slice(at + 1) };
  });
  const f: JobFilter = {
    kind: flags.kind,
    version: flags.version,
    tenant: flags.tenant,
    createdAfter: instant('created-after', flags.createdAfter),
    createdBefore: instant('created-before', flags.createdBefore),
    finishedAfter: instant('finished-after', flags.finishedAfter),
    finishedBefore: instant('finished-before', flags.finishedBefore),
    errorText: flags.error,
    ...(states.length ? { states } : {}),
    ...(flags.tag?.length ? { tags: flags.tag } : {}),
    ...(metadata.length ? { metadata } : {}),
  };
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as JobFilter;
}
