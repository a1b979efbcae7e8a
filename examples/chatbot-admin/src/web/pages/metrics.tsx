// A small metrics panel for this tenant: queue depth, oldest pending age, jobs by state and
// provider calls by class and outcome. Read again whenever the live job list changes.
import { useJobs } from '@sluice/react';
import { useEffect, useState } from 'react';
import { api } from '../api.js';
import type { Jobs } from '../../jobs.js';
import { useSession } from '../session.js';

interface Figures {
  queueDepth: number;
  oldestPendingAgeSec: number;
  jobsByState: Record<string, number>;
  providerCalls: { class: string; outcome: string; n: number }[];
}

export function Metrics() {
  const { apiKey } = useSession();
  const { jobs } = useJobs<Jobs, 'document.analyze'>({ kind: 'document.analyze' });
  const [figures, setFigures] = useState<Figures | null>(null);
  const version = jobs.map((j) => `${j.view.id}:${j.view.state}`).join(',');
  useEffect(() => {
    void api<Figures>(apiKey, '/api/metrics').then(setFigures);
  }, [apiKey, version]);
  if (!figures) return <p>Loading…</p>;
  return (
    <section className="metrics">
      <h2>Metrics</h2>
      <div className="cards">
        <div className="card" data-metric="queue-depth">
          <b>{figures.queueDepth}</b> queued
        </div>
        <div className="card" data-metric="oldest-pending">
          <b>{figures.oldestPendingAgeSec.toFixed(1)} s</b> oldest pending
        </div>
      </div>
      <h3>Jobs by state</h3>
      <table>
        <tbody>
          {Object.entries(figures.jobsByState).map(([state, n]) => (
            <tr key={state} data-jobs-state={state}>
              <td>{state}</td>
              <td>{n}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Provider calls</h3>
      <table>
        <thead>
          <tr>
            <th>class</th>
            <th>outcome</th>
            <th>calls</th>
          </tr>
        </thead>
        <tbody>
          {figures.providerCalls.map((c) => (
            <tr key={`${c.class}/${c.outcome}`} data-calls={`${c.class}/${c.outcome}`}>
              <td>{c.class}</td>
              <td>{c.outcome}</td>
              <td>{c.n}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
