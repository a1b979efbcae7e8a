// The overview's activity panels (`jobs.activity`): jobs finished per state in the last 15
// minutes and hour, the gateway's latency histograms as bar rows (no chart library: a bar is a
// div whose width is its share of the largest bucket), and the workers running the tenant's jobs.
import type { ActivityResult, HistogramView } from '@sluice/contracts/wire';
import { StateBadge, Time } from './ui.js';

const seconds = (s: number) => (s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(1)} s`);

function Finished(props: { rows: ActivityResult['finished'] }) {
  const states = [...new Set(props.rows.map((r) => r.state))];
  const countOf = (window: string, state: string) =>
    props.rows.find((r) => r.window === window && r.state === state)?.count ?? 0;
  if (states.length === 0) return <p className="empty">No job finished in the last hour.</p>;
  return (
    <table className="finished">
      <thead>
        <tr>
          <th>State</th>
          <th>15 min</th>
          <th>1 h</th>
        </tr>
      </thead>
      <tbody>
        {states.map((s) => (
          <tr key={s} data-state={s}>
            <td>
              <StateBadge state={s} />
            </td>
            <td className="count" data-window="15m">
              {countOf('15m', s)}
            </td>
            <td className="count" data-window="1h">
              {countOf('1h', s)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Histogram(props: { h: HistogramView }) {
  const { h } = props;
  // Buckets are cumulative; the bars show each bucket's own share.
  const own = h.buckets.map((b, i) => ({ le: b.le, n: b.count - (h.buckets[i - 1]?.count ?? 0) }));
  const max = Math.max(1, ...own.map((b) => b.n));
  return (
    <div className="histogram" data-metric={h.name}>
      <h4 title={h.help}>
        {h.name} — <span className="count">{h.count}</span> observed
        {h.count > 0 && `, mean ${seconds(h.sum / h.count)}`}
      </h4>
      {own.map((b) => (
        <div className="bar-row" key={String(b.le)}>
          <span className="bar-label">≤ {b.le === null ? '∞' : seconds(b.le)}</span>
          <span className="bar" style={{ width: `${(b.n / max) * 70}%` }} />
          <span className="bar-count">{b.n}</span>
        </div>
      ))}
    </div>
  );
}

export function Activity(props: { data: ActivityResult }) {
  const { finished, latency, workers } = props.data;
  return (
    <div className="grid">
      <div className="panel">
        <h3>Finished</h3>
        <Finished rows={finished} />
        <h3>Workers</h3>
        {workers.length === 0 ? (
          <p className="empty">No worker is running a job of this tenant.</p>
        ) : (
          <table className="workers">
            <tbody>
              {workers.map((w) => (
                <tr key={w.workerId} data-worker={w.workerId}>
                  <td>{w.workerId}</td>
                  <td className="count">{w.running} running</td>
                  <td>
                    alive until <Time at={w.aliveUntil} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div className="panel latency">
        <h3>Latency (this gateway)</h3>
        {latency.length === 0 && <p className="empty">No latency histogram here.</p>}
        {latency.map((h) => (
          <Histogram key={h.name} h={h} />
        ))}
      </div>
    </div>
  );
}
