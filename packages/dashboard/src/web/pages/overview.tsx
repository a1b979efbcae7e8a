// Overview: the tenant's schedules and recent bulk operations.
import type { BulkOperationView, ScheduleView } from '@sluice/contracts/wire';
import { useEffect, useState } from 'react';
import { ErrorLine, message, Time } from '../components/ui.js';
import { useSession } from '../session.js';

export function Overview() {
  const { client, can } = useSession();
  const [schedules, setSchedules] = useState<ScheduleView[]>([]);
  const [ops, setOps] = useState<BulkOperationView[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    client.schedules.list({ limit: 50 }).then(
      (r) => setSchedules(r.items),
      (e: unknown) => setError(message(e)),
    );
    if (can('jobs:manage'))
      client.bulk.list({ limit: 10 }).then(
        (r) => setOps(r.items),
        () => {},
      );
  }, [client, can]);
  return (
    <section>
      <h2>Overview</h2>
      <ErrorLine error={error} />
      <div className="panel">
        <h3>Schedules</h3>
        {schedules.length === 0 ? (
          <p className="empty">No schedules.</p>
        ) : (
          <table>
            <tbody>
              {schedules.map((s) => (
                <tr key={s.id}>
                  <td>{s.id}</td>
                  <td>{s.kind}</td>
                  <td>{s.cron}</td>
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
