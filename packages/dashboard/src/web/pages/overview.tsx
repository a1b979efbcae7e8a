// Overview: open jobs by kind and state, queue depth and oldest age per kind, why jobs wait or
// are parked (re-read when a job changes state, debounced), the schedules and recent bulk
// operations, and the API keys for an `admin` key; then what has been happening (activity.tsx).
import type {
  ActivityResult,
  BulkOperationView,
  OverviewResult,
  ScheduleView,
} from '@sluice/contracts/wire';
import { useCallback, useEffect, useState } from 'react';
import { Activity } from '../components/activity.js';
import { ApiKeys } from '../components/api-keys.js';
import { ErrorLine, message, StateBadge, Time } from '../components/ui.js';
import { useDebounced, useFeed } from '../live.js';
import { href } from '../route.js';
import { useSession } from '../session.js';

function age(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function Counts(props: { data: OverviewResult }) {
  const { open, queues, waiting } = props.data;
  return (
    <div className="grid">
      <div className="panel">
        <h3>Open jobs</h3>
        <table className="open">
          <tbody>
            {open.map((r) => (
              <tr key={`${r.kind}/${r.state}`} data-kind={r.kind} data-state={r.state}>
                <td>
                  <a href={href('/jobs', { kind: r.kind, state: r.state })}>{r.kind}</a>
                </td>
                <td>
                  <StateBadge state={r.state} />
                </td>
                <td className="count">{r.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {open.length === 0 && <p className="empty">No open job.</p>}
      </div>
      <div className="panel">
        <h3>Queues</h3>
        <table className="queues">
          <tbody>
            {queues.map((q) => (
              <tr key={q.kind}>
                <td>{q.kind}</td>
                <td>{q.depth} queued</td>
                <td>oldest {age(q.oldestAgeMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {queues.length === 0 && <p className="empty">Every queue is empty.</p>}
        <h3>Waiting and parked</h3>
        <table className="waiting">
          <tbody>
            {waiting.map((w, i) => (
              <tr key={i}>
                <td>
                  <StateBadge state={w.state} />
                </td>
                <td className="reason">{w.reason}</td>
                <td className="count">{w.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

export function Overview() {
  const { client, can } = useSession();
  const [data, setData] = useState<OverviewResult | null>(null);
  const [activity, setActivity] = useState<ActivityResult | null>(null);
  const [schedules, setSchedules] = useState<ScheduleView[]>([]);
  const [ops, setOps] = useState<BulkOperationView[]>([]);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    client.jobs.overview().then(setData, (e: unknown) => setError(message(e)));
    client.jobs.activity().then(setActivity, (e: unknown) => setError(message(e)));
  }, [client]);
  useEffect(() => {
    load();
    client.schedules.list({ limit: 50 }).then(
      (r) => setSchedules(r.items),
      (e: unknown) => setError(message(e)),
    );
    if (can('jobs:manage'))
      client.bulk.list({ limit: 10 }).then(
        (r) => setOps(r.items),
        () => {},
      );
  }, [client, can, load]);
  const reload = useDebounced(load, 500);
  useFeed((f) => 'to' in f.event && reload(), load);
  return (
    <section>
      <h2>Overview</h2>
      <ErrorLine error={error} />
      {data ? <Counts data={data} /> : <p className="loading">Loading…</p>}
      {activity && <Activity data={activity} />}
      <div className="panel">
        <h3>Schedules</h3>
        {schedules.length === 0 ? (
          <p className="empty">No schedules.</p>
        ) : (
          <table>
            <tbody>
              {schedules.map((s) => (
                <tr key={s.id}>
                  <td>{s.name ?? s.id}</td>
                  <td>{s.kind}</td>
                  <td>
                    <code>{s.cron}</code> {s.timezone}
                  </td>
                  <td>{s.paused ? 'paused' : 'active'}</td>
                  <td>
                    next <Time at={s.nextFireAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {can('admin') && <ApiKeys />}
      {ops.length > 0 && (
        <div className="panel">
          <h3>Bulk operations</h3>
          <table>
            <tbody>
              {ops.map((o) => (
                <tr key={o.id}>
                  <td>{o.action}</td>
                  <td>{o.state}</td>
                  <td>
                    {o.processed}/{o.total}
                  </td>
                  <td>{o.note ?? ''}</td>
                  <td>
                    <Time at={o.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
