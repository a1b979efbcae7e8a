// Dead letters and failed jobs: the list (live through the search hook) narrowed by the same
// filter form as the jobs page, and, with `jobs:manage`, a bulk requeue of everything it matches.
import { useMemo } from 'react';
import { BulkRequeue } from '../components/bulk-requeue.js';
import { FilterForm } from '../components/filter-form.js';
import { JobTable } from '../components/job-table.js';
import { ErrorLine } from '../components/ui.js';
import { readParams, toJobFilter } from '../filters.js';
import { useRoute } from '../route.js';
import { useSession } from '../session.js';
import { useSearch } from './jobs.js';

export function DeadLetters() {
  const { can } = useSession();
  const { params } = useRoute();
  const query = params.toString();
  const values = useMemo(() => {
    const v = readParams(new URLSearchParams(query));
    return { ...v, state: v.state || 'dead_lettered' };
  }, [query]);
  const filter = useMemo(() => toJobFilter(values), [values]);
  const s = useSearch(filter);
  return (
    <section>
      <h2>Dead letters and failed jobs</h2>
      <FilterForm key={`form:${query}`} path="/dead-letters" value={values} />
      {can('jobs:manage') && (
        <BulkRequeue key={`bulk:${query}`} filter={filter} onFinished={s.reload} />
      )}
      <ErrorLine error={s.error} />
      {s.jobs === null ? (
        <p className="loading">Loading…</p>
      ) : s.jobs.length === 0 ? (
        <p className="empty">Nothing here.</p>
      ) : (
        <JobTable jobs={s.jobs} />
      )}
    </section>
  );
}
