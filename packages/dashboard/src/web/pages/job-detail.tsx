// One job: its actions (by scope), timeline, units with checkpoints, provider-call ledger with
// bills, attempts, assets, links and raw input/output. Re-read when the feed reports an event of
// this job (debounced: a burst of progress is one read).
import type { JobDetail } from '@sluice/contracts/wire';
import { useCallback, useEffect, useState } from 'react';
import { JobActions } from '../components/job-actions.js';
import { Assets, Attempts, Links, Raw } from '../components/detail-misc.js';
import { Ledger, Timeline, Units } from '../components/detail-tables.js';
import { ErrorLine, message, StateBadge, Time } from '../components/ui.js';
import { useDebounced, useFeed } from '../live.js';
import { useSession } from '../session.js';

export function JobDetailPage(props: { id: string }) {
  const { client } = useSession();
  const [detail, setDetail] = useState<JobDetail | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    client.jobs.detail(props.id).then(
      (d) => {
        setDetail(d);
        setError('');
      },
      (e: unknown) => setError(message(e)),
    );
  }, [client, props.id]);
  useEffect(load, [load]);
  const reload = useDebounced(load, 150);
  useFeed((f) => f.event.jobId === props.id && reload(), load);
  if (!detail) return error ? <ErrorLine error={error} /> : <p className="loading">Loading…</p>;
  const { job } = detail;
  return (
    <section className="detail" data-job={job.id} data-state={job.state}>
      <h2>
        {job.kind} <span className="muted">{job.version}</span> <StateBadge state={job.state} />
      </h2>
      <p className="meta">
        <code>{job.id}</code> · created <Time at={job.createdAt} /> · attempts {job.attempts}/
        {job.maxAttempts}
        {job.tags.length > 0 && <> · tags {job.tags.join(', ')}</>}
        {Object.keys(job.metadata).length > 0 && <> · metadata {JSON.stringify(job.metadata)}</>}
      </p>
      {(job.error || job.reason) && (
        <p className="error-message">{job.error?.message ?? job.reason}</p>
      )}
      <ErrorLine error={error} />
      <JobActions detail={detail} onDone={load} />
      <div className="grid">
        <Timeline events={detail.events} />
        <Attempts attempts={detail.attempts} />
      </div>
      <Units units={detail.units} />
      <Ledger calls={detail.calls} bills={detail.bills} />
      <Assets jobId={job.id} assets={detail.assets} />
      <Links links={detail.links} />
      <Raw input={job.input} output={job.output} />
    </section>
  );
}
