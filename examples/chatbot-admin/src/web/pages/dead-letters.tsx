// Dead letters: jobs that ran out of attempts or could not be routed, with their reason and
// attempts; requeue puts one back with a fresh attempt budget. Live: useJobs on the state.
import { useJobs } from '@sluice/react';
import { useState } from 'react';
import type { Jobs } from '../../jobs.js';
import { useSession } from '../session.js';

export function DeadLetters() {
  const { client } = useSession();
  const [error, setError] = useState('');
  const { jobs, loading } = useJobs<Jobs, 'document.analyze'>({
    kind: 'document.analyze',
    states: ['dead_lettered'],
  });
  return (
    <section>
      <h2>Dead letters</h2>
      {error && <p className="error">{error}</p>}
      {loading ? (
        <p>Loading…</p>
      ) : jobs.length === 0 ? (
        <p className="empty">No dead letters.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Job</th>
              <th>Reason</th>
              <th>Attempts</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {jobs.map(({ view }) => (
              <tr key={view.id} data-job={view.id}>
                <td>
                  <a href={`#/documents/${encodeURIComponent(view.id)}`}>{view.id}</a>
                </td>
                <td>{view.reason ?? view.error?.message}</td>
                <td>
                  {view.attempts}/{view.maxAttempts}
                </td>
                <td>
                  <button
                    onClick={() =>
                      client.deadLetters
                        .requeue(view.id, 'document.analyze')
                        .catch((e: Error) => setError(e.message))
                    }
                  >
                    Requeue
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
