// One document: its live event timeline, why it failed if it did (with the operator's requeue),
// and once analysed its tables, intents and the knowledge-base asset.
import { parseJobId } from '@sluice/contracts/wire';
import { useJob } from '@sluice/react';
import { useEffect, useState, type ReactNode } from 'react';
import type { Jobs } from '../../jobs.js';
import { describeFailure } from '../failure.js';
import { useSession } from '../session.js';
import { useDocumentName } from './documents.js';
import { RequeueButton, type RequeueOutcome } from './requeue-button.js';

type Analyze = Jobs['document.analyze'];

/** States a document ends in without an output: the page says why. */
const ENDED_WITHOUT_OUTPUT = new Set(['failed', 'dead_lettered', 'cancelled', 'stale']);

/** The uploaded file's id, from the job's view (undefined until read, or for no such job). */
function useFileId(id: string): string | undefined {
  const { client } = useSession();
  const [fileId, setFileId] = useState<string>();
  useEffect(() => {
    let live = true;
    client.jobs.get(id).then(
      (view) => live && setFileId(view.fileIds[0]),
      () => undefined, // another tenant's or a missing job: the page shows no document
    );
    return () => {
      live = false;
    };
  }, [client, id]);
  return fileId;
}

function Cause(props: { failure: NonNullable<ReturnType<typeof describeFailure>> }) {
  const { failure } = props;
  return (
    <div className="cause error" role="alert" data-code={failure.code}>
      <strong>
        <code>{failure.code}</code>
      </strong>{' '}
      {failure.message}
      {failure.units.length > 0 && (
        <ul>
          {failure.units.map((u) => (
            <li key={u.unitKey} data-unit={u.unitKey}>
              {u.unitKey}: <code>{u.code}</code> {u.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The page. A live view ends at a final state (`failed` included), so after a requeue the view
 * is mounted again: it replays the job and, finding it moved on, watches it on. The requeue's
 * answer lives here, above it.
 */
export function DocumentDetail(props: { id: string }) {
  const [watch, setWatch] = useState(0);
  const [outcome, setOutcome] = useState<RequeueOutcome>();
  return (
    <DocumentView
      key={watch}
      id={props.id}
      requeue={(state) => (
        <RequeueButton
          id={props.id}
          state={state}
          outcome={outcome}
          onOutcome={(o) => {
            setOutcome(o);
            if (o.ok) setWatch((n) => n + 1);
          }}
        />
      )}
    />
  );
}

function DocumentView(props: { id: string; requeue: (state: string | undefined) => ReactNode }) {
  const { client } = useSession();
  const job = useJob<Analyze>(props.id);
  const out = job.result;
  const name = useDocumentName(useFileId(props.id));
  // The version is fixed at accept and carried in the job id.
  const version = parseJobId(props.id)?.version ?? '';
  const failure =
    job.state && ENDED_WITHOUT_OUTPUT.has(job.state)
      ? describeFailure(job.jobError, job.reason)
      : undefined;
  return (
    <section className="detail" data-job={props.id} data-state={job.state ?? ''}>
      <p>
        <a href="#/documents">← Documents</a>
      </p>
      <h2>{out?.filename ?? name}</h2>
      <p className="job-id">
        Job <code>{props.id}</code>
      </p>
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
      {failure ? (
        <Cause failure={failure} />
      ) : (
        job.error &&
        job.state !== 'needs_review' && (
          <p className="error" role="alert">
            {job.error.message}
          </p>
        )
      )}
      {props.requeue(job.state)}
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
