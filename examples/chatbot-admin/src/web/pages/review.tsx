// The review queue: jobs parked because a paid call's answer was lost (ambiguous). Approve with
// a reason authorises exactly one more call; discard fails the job. Live: useJobs on the
// needs_review state.
import { useJobs } from '@sluice/react';
import { useState } from 'react';
import type { Jobs } from '../../jobs.js';
import { useSession } from '../session.js';

function ReviewItem(props: {
  id: string;
  reason: string | null;
  details: Record<string, unknown> | undefined;
  attempts: number;
}) {
  const { client } = useSession();
  const [note, setNote] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
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
        <a href={`#/documents/${encodeURIComponent(props.id)}`}>{props.id}</a>
        <div className="reason">{props.reason}</div>
        <small>
          provider {String(props.details?.provider ?? '—')} · unit{' '}
          {String(props.details?.unitKey ?? '—')} · call {String(props.details?.callName ?? '—')} ·
          attempts {props.attempts}
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
              details={view.error && 'details' in view.error ? view.error.details : undefined}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
