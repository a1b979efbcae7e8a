// A table of jobs (search results, dead letters): id linking to the detail, kind, state, tags,
// attempts, created and the reason or error.
import type { LabelledJobView } from '@sluice/contracts/wire';
import { href } from '../route.js';
import { StateBadge, Time } from './ui.js';

export function JobTable(props: { jobs: readonly LabelledJobView[] }) {
  return (
    <table className="jobs">
      <thead>
        <tr>
          <th>Job</th>
          <th>Kind</th>
          <th>State</th>
          <th>Tags</th>
          <th>Attempts</th>
          <th>Created</th>
          <th>Reason / error</th>
        </tr>
      </thead>
      <tbody>
        {props.jobs.map((j) => (
          <tr key={j.id} data-job={j.id} data-state={j.state}>
            <td>
              <a href={href(`/jobs/${encodeURIComponent(j.id)}`)}>{j.id}</a>
            </td>
            <td>
              {j.kind} <span className="muted">{j.version}</span>
            </td>
            <td>
              <StateBadge state={j.state} />
            </td>
            <td>{j.tags.join(', ')}</td>
            <td>
              {j.attempts}/{j.maxAttempts}
            </td>
            <td>
              <Time at={j.createdAt} />
            </td>
            <td className="reason">{j.error?.message ?? j.reason ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
