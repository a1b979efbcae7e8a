// Jobs: search by kind, state, tags, metadata, created range and error text (the filter is in the
// URL), cursor pages, and states kept live from the tenant feed: a listed job that changes state
// is updated in place without a reload.
import type { JobFilter, LabelledJobView } from '@sluice/contracts/wire';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { FilterForm } from '../components/filter-form.js';
import { JobTable } from '../components/job-table.js';
import { ErrorLine, message } from '../components/ui.js';
import { readParams, toJobFilter } from '../filters.js';
import { useFeed } from '../live.js';
import { useRoute } from '../route.js';
import { useSession } from '../session.js';

const PAGE = 25;

export function useSearch(filter: JobFilter) {
  const { client } = useSession();
  const [jobs, setJobs] = useState<LabelledJobView[] | null>(null);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const key = JSON.stringify(filter);
  const cursor = cursors[cursors.length - 1] ?? null;
  const load = useCallback(() => {
    client.jobs.search({ ...filter, cursor, limit: PAGE }).then(
      (r) => {
        setJobs(r.items);
        setNext(r.nextCursor);
        setError('');
      },
      (e: unknown) => setError(message(e)),
    );
    // `key` stands for the filter's content: a new object with the same filter reads nothing.
  }, [client, key, cursor]);
  useEffect(() => setCursors([null]), [key]);
  useEffect(load, [load]);
  useFeed((f) => {
    const e = f.event;
    if (!('to' in e)) return;
    setJobs((list) =>
      list?.some((j) => j.id === e.jobId)
        ? list.map((j) => (j.id === e.jobId ? { ...j, state: e.to, updatedAt: e.at } : j))
        : list,
    );
  }, load);
  return {
    jobs,
    error,
    reload: load,
    page: cursors.length,
    hasNext: next !== null,
    nextPage: () => next && setCursors((c) => [...c, next]),
    prevPage: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
  };
}

export function Jobs() {
  const { params } = useRoute();
  const values = readParams(params);
  const query = params.toString();
  const filter = useMemo(() => toJobFilter(readParams(new URLSearchParams(query))), [query]);
  const s = useSearch(filter);
  return (
    <section>
      <h2>Jobs</h2>
      <FilterForm key={params.toString()} path="/jobs" value={values} />
      <ErrorLine error={s.error} />
      {s.jobs === null ? (
        <p className="loading">Loading…</p>
      ) : s.jobs.length === 0 ? (
        <p className="empty">No job matches.</p>
      ) : (
        <JobTable jobs={s.jobs} />
      )}
      <nav className="pages">
        <button onClick={s.prevPage} disabled={s.page === 1}>
          ← Newer
        </button>
        <span>Page {s.page}</span>
        <button onClick={s.nextPage} disabled={!s.hasNext}>
          Older →
        </button>
      </nav>
    </section>
  );
}
