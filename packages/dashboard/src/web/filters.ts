// A job filter as URL parameters and back: `kind`, `state` (comma list), `tag` (comma list),
// `meta` (comma list of key or key=value), `after`/`before` (created, ISO) and `error` (text).
// The same filter drives the jobs search and a bulk operation.
import { JOB_STATES, type JobFilter, type JobState } from '@sluice/contracts/wire';

export type FilterParams = Record<
  'kind' | 'state' | 'tag' | 'meta' | 'after' | 'before' | 'error',
  string
>;

export const FILTER_KEYS = ['kind', 'state', 'tag', 'meta', 'after', 'before', 'error'] as const;

export function readParams(params: URLSearchParams): FilterParams {
  return Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? ''])) as FilterParams;
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function iso(s: string): string | undefined {
  if (!s) return undefined;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

export function toJobFilter(p: FilterParams): JobFilter {
  const states = list(p.state).filter((s): s is JobState =>
    (JOB_STATES as readonly string[]).includes(s),
  );
  const tags = list(p.tag);
  const metadata = list(p.meta).map((m) => {
    const i = m.indexOf('=');
    return i < 0 ? { key: m } : { key: m.slice(0, i), value: m.slice(i + 1) };
  });
  const f: JobFilter = {};
  if (p.kind) f.kind = p.kind;
  if (states.length) f.states = states;
  if (tags.length) f.tags = tags;
  if (metadata.length) f.metadata = metadata;
  const after = iso(p.after);
  const before = iso(p.before);
  if (after) f.createdAfter = after;
  if (before) f.createdBefore = before;
  if (p.error) f.errorText = p.error;
  return f;
}

/** Whether a job as the feed reports it still matches the filter's states. */
export function stateMatches(f: JobFilter, state: JobState): boolean {
  return !f.states || f.states.includes(state);
}
