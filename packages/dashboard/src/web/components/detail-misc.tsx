// The job detail's smaller panels: attempts, assets (download through a signed link), links to
// parent, children and waits, and the raw input and output.
import type { JobDetail } from '@sluice/contracts/wire';
import { useState } from 'react';
import { href } from '../route.js';
import { useSession } from '../session.js';
import { message, StateBadge, Time } from './ui.js';

export function Attempts(props: { attempts: JobDetail['attempts'] }) {
  return (
    <div className="panel">
      <h3>Attempts</h3>
      <table className="attempts">
        <thead>
          <tr>
            <th>#</th>
            <th>Worker</th>
            <th>Epoch</th>
            <th>Start</th>
            <th>End</th>
            <th>Outcome</th>
          </tr>
        </thead>
        <tbody>
          {props.attempts.map((a, i) => (
            <tr key={i}>
              <td>{a.attempt}</td>
              <td>{a.worker ?? '—'}</td>
              <td>{a.epoch ?? '—'}</td>
              <td>
                <Time at={a.startedAt} />
              </td>
              <td>
                <Time at={a.endedAt} />
              </td>
              <td title={a.error?.message ?? a.reason ?? ''}>
                {a.outcome ? <StateBadge state={a.outcome} /> : 'running'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Assets(props: { jobId: string; assets: JobDetail['assets'] }) {
  const { client } = useSession();
  const [error, setError] = useState('');
  if (props.assets.length === 0) return null;
  return (
    <div className="panel">
      <h3>Assets</h3>
      {error && <p className="error">{error}</p>}
      <ul>
        {props.assets.map((a) => (
          <li key={`${a.unit ?? ''}/${a.name}`}>
            <button
              className="link"
              onClick={() =>
                client
                  .job(props.jobId)
                  .assetUrl(a.name, { unit: a.unit })
                  .then((u) => window.open(u.url, '_blank', 'noopener'))
                  .catch((e: unknown) => setError(message(e)))
              }
            >
              {a.unit ? `${a.unit}/` : ''}
              {a.name}
            </button>{' '}
            <span className="muted">
              {a.contentType}, {a.size} bytes
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Links(props: { links: JobDetail['links'] }) {
  const { parent, children, waits } = props.links;
  if (!parent && children.length === 0 && waits.length === 0) return null;
  const to = (id: string) => <a href={href(`/jobs/${encodeURIComponent(id)}`)}>{id}</a>;
  return (
    <div className="panel">
      <h3>Links</h3>
      {parent && <p>Parent: {to(parent)}</p>}
      {children.length > 0 && (
        <ul>
          {children.map((c) => (
            <li key={c.id}>
              {to(c.id)} {c.kind} <StateBadge state={c.state} />
            </li>
          ))}
        </ul>
      )}
      {waits.map((w, i) => (
        <p key={i}>
          Waiting on {w.on}: {w.reason} since <Time at={w.since} />
        </p>
      ))}
    </div>
  );
}

export function Raw(props: { input: unknown; output: unknown }) {
  return (
    <details className="panel">
      <summary>Raw input and output</summary>
      <h4>Input</h4>
      <pre>{JSON.stringify(props.input, null, 2)}</pre>
      <h4>Output</h4>
      <pre>{JSON.stringify(props.output ?? null, null, 2)}</pre>
    </details>
  );
}
