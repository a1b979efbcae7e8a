// Dead letters: jobs that ran out of attempts or could not be routed, with their reason and
// attempts; requeue puts one back with a fresh attempt budget (its version unchanged). Live:
// useJobs on the state, so a requeued document leaves the list without a reload.
import type { JobError, JobView } from '@sluice/contracts/wire';
import { useJobs } from '@sluice/react';
import { useState } from 'react';
import type { Jobs } from '../../jobs.js';
import { useSession } from '../session.js';
import { useDocumentName } from './documents.js';

/** The error and, for a stage whose units failed, each unit's cause: what the operator must fix. */
function describeError(error: JobError): string[] {
  if (error.kind !== 'units_failed') return [error.message];
  return [
    error.message,
    ...error.causes.map((c) => `${c.unitKey}: ${describeError(c.error).join('; ')}`),
  ];
}

function DeadLetterRow(props: { view: JobView; onError: (message: string) => void }) {
  const { client } = useSession();
  const { view } = props;
  const name = useDocumentName(view.fileIds[0]);
  return (
    <tr data-job={view.id} data-doc={name}>
      <td>
        <a href={`#/documents/${encodeURIComponent(view.id)}`}>{name}</a>
      </td>
      <td className="version">{view.version}</td>
      <td className="reason">
        {view.reason ?? ''}
        {view.error &&
          describeError(view.error).map((line, i) => (
            <div key={i} className="error-message">
              {line}
            </div>
          ))}
      </td>
      <td className="attempts">
        {view.attempts}/{view.maxAttempts}
      </td>
      <td>
        <button
          onClick={() =>
            client.deadLetters
              .requeue(view.id, 'document.analyze')
              .catch((e: Error) => props.onError(e.message))
          }
        >
          Requeue
        </button>
      </td>
    </tr>
  );
}

export function DeadLetters() {
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
        <table className="dead-letters">
          <thead>
            <tr>
              <th>Document</th>
              <th>Analyzer</th>
              <th>Reason</th>
              <th>Attempts</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {jobs.map(({ view }) => (
              <DeadLetterRow key={view.id} view={view} onError={setError} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
