// One document: its live event timeline, and once analysed its tables, intents and the
// knowledge-base asset.
import { parseJobId } from '@sluice/contracts/wire';
import { useJob } from '@sluice/react';
import type { Jobs } from '../../jobs.js';
import { useSession } from '../session.js';

type Analyze = Jobs['document.analyze'];

export function DocumentDetail(props: { id: string }) {
  const { client } = useSession();
  const job = useJob<Analyze>(props.id);
  const out = job.result;
  // The version is fixed at accept and carried in the job id.
  const version = parseJobId(props.id)?.version ?? '';
  return (
    <section className="detail" data-job={props.id} data-state={job.state ?? ''}>
      <p>
        <a href="#/documents">← Documents</a>
      </p>
      <h2>{out?.filename ?? props.id}</h2>
      <p>
        Analyzer:{' '}
        <span className="version" data-version={version}>
          {version}
        </span>
        {' · '}State:{' '}
        <span className={`state state-${job.state ?? 'loading'}`}>{job.state ?? '…'}</span>
        {job.reason && <span className="reason"> — {job.reason}</span>}
        {job.state === 'needs_review' && (
          <a className="button" href="#/review">
            Open the review queue
          </a>
        )}
      </p>
      {job.error && job.state !== 'needs_review' && (
        <p className="error" role="alert">
          {job.error.message}
        </p>
      )}
      <div className="columns">
        <div>
          <h3>Timeline</h3>
          <ol className="timeline">
            {job.events.map((e) => (
              <li key={e.seq} data-seq={e.seq}>
                <time>{new Date(e.at).toLocaleTimeString()}</time>{' '}
                {e.type === 'progress'
                  ? `${e.data.label}: ${e.data.step}`
                  : e.type === 'unit_done'
                    ? `unit ${e.unitKey} done${e.reused ? ' (reused)' : ''}`
                    : e.type === 'waiting'
                      ? `waiting: ${e.reason.replace('_', ' ')} by ${e.by}`
                      : `${e.from ?? '·'} → ${e.to}${'reason' in e && e.reason ? ` (${e.reason})` : ''}`}
              </li>
            ))}
          </ol>
        </div>
        {out && (
          <div>
            {out.units.some((u) => u.keywords) && (
              <>
                <h3>Keywords</h3>
                <ul className="keywords">
                  {out.units.map((u) => (
                    <li key={u.key} data-unit={u.key}>
                      {u.label}: {(u.keywords ?? []).join(', ')}
                    </li>
                  ))}
                </ul>
              </>
            )}
            <h3>Tables ({out.tables.length})</h3>
            {out.tables.map((t, i) => (
              <table key={i} className="extracted" data-table={t.title}>
                <caption>
                  {t.title} <small>({t.source})</small>
                </caption>
                <thead>
                  <tr>
                    {t.columns.map((c, j) => (
                      <th key={j}>{c}</th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {t.rows.map((r, j) => (
                    <tr key={j}>
                      {r.map((cell, k) => (
                        <td key={k}>{cell}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
            <h3>Intents ({out.intents.length})</h3>
            <ul className="intents">
              {out.intents.map((intent) => (
                <li key={intent.name} data-intent={intent.name}>
                  <code>{intent.name}</code> <small>({intent.source})</small>
                  <div className="examples">“{intent.examples[0]}”</div>
                  <div>{intent.answer}</div>
                </li>
              ))}
            </ul>
            <p>
              <button
                onClick={() =>
                  void client
                    .job(props.id)
                    .assetUrl(out.asset.name)
                    .then((link) => window.open(link.url, '_blank'))
                }
              >
                Download {out.asset.name} ({out.asset.size} bytes)
              </button>
            </p>
          </div>
        )}
      </div>
    </section>
  );
}
