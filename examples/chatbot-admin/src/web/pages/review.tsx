// The review queue: jobs parked because a paid call's answer was lost (ambiguous). Approve with
// a reason authorises exactly one more call; discard fails the job. Live: useJobs on the
// needs_review state; each job's evidence (the unit and provider its review named, the calls in
// billing doubt) from the gateway's review list, read again whenever the queue changes.
import type { ReviewItem as ReviewEvidence } from '@sluice/client';
import { useJobs } from '@sluice/react';
import { useEffect, useState } from 'react';
import type { Jobs } from '../../jobs.js';
import { useSession } from '../session.js';
import { useDocumentName } from './documents.js';

type Evidence = ReviewEvidence['review'];

/** The evidence of each listed job by id; re-read when the set of ids changes. */
function useEvidence(ids: readonly string[]): Map<string, Evidence> {
  const { client } = useSession();
  const [byId, setById] = useState(() => new Map<string, Evidence>());
  const key = [...ids].sort().join(' ');
  useEffect(() => {
    if (!key) return;
    let live = true;
    void client.review.list({ kind: 'document.analyze', limit: 100 }).then(
      (page) => live && setById(new Map(page.items.map((item) => [item.id, item.review]))),
      () => undefined, // the list shows the jobs anyway; the evidence comes with the next change
    );
    return () => {
      live = false;
    };
  }, [client, key]);
  return byId;
}

/** "classify (connection dropped)", one per call in doubt; a unit is named when it differs. */
function describeCalls(evidence: Evidence): string {
  if (evidence.calls.length === 0) return '—';
  return evidence.calls
    .map(
      (c) =>
        `${c.callName}${c.unitKey === evidence.unitKey ? '' : ` of ${c.unitKey}`} (${c.outcome.replaceAll('_', ' ')})`,
    )
    .join(', ');
}

function ReviewItem(props: {
  id: string;
  reason: string | null;
  fileId: string | undefined;
  evidence: Evidence | undefined;
  attempts: number;
}) {
  const { client } = useSession();
  const [note, setNote] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const ev = props.evidence;
  const name = useDocumentName(props.fileId);
  const act = (what: 'approve' | 'discard') => {
    if (!note.trim()) return setError('Give a reason: it is recorded with the decision.');
    setBusy(true);
    const done =
      what === 'approve'
        ? client.review.approve(props.id, note.trim(), 'document.analyze')
        : client.review.discard(props.id, note.trim());
    done.then(
      () => setBusy(false),
      (e: Error) => (setBusy(false), setError(e.message)),
    );
  };
  return (
    <li className="review-item" data-job={props.id}>
      <div>
        <a href={`#/documents/${encodeURIComponent(props.id)}`}>{name}</a> <code>{props.id}</code>
        <div className="reason">{props.reason}</div>
        <small className="evidence" data-loaded={ev ? 'yes' : 'no'}>
          provider {ev ? (ev.provider ?? '—') : '…'} · unit {ev ? (ev.unitKey ?? '—') : '…'} · call{' '}
          {ev ? describeCalls(ev) : '…'} · attempts {props.attempts}
        </small>
      </div>
      <input
        aria-label="Reason"
        name="note"
        placeholder="Why (e.g. checked the provider's dashboard)"
        value={note}
        onChange={(e) => setNote(e.target.value)}
      />
      <button disabled={busy} onClick={() => act('approve')}>
        Approve one re-call
      </button>
      <button disabled={busy} className="secondary" onClick={() => act('discard')}>
        Discard
      </button>
      {error && <span className="error">{error}</span>}
    </li>
  );
}

export function Review() {
  const { jobs, loading } = useJobs<Jobs, 'document.analyze'>({
    kind: 'document.analyze',
    states: ['needs_review'],
  });
  const evidence = useEvidence(jobs.map(({ view }) => view.id));
  return (
    <section>
      <h2>Review queue</h2>
      <p>Paid calls whose outcome is unknown. Nothing is re-sent without a person's approval.</p>
      {loading ? (
        <p>Loading…</p>
      ) : jobs.length === 0 ? (
        <p className="empty">Nothing waits for review.</p>
      ) : (
        <ul className="reviews">
          {jobs.map(({ view }) => (
            <ReviewItem
              key={view.id}
              id={view.id}
              reason={view.reason}
              attempts={view.attempts}
              fileId={view.fileIds[0]}
              evidence={evidence.get(view.id)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
