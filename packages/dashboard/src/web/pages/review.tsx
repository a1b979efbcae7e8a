// The review queue: jobs parked in needs_review with the evidence (reason, unit, provider, the
// calls in billing doubt an approval would authorise once more). Approve needs a note (the audit
// log keeps who and why); discard fails the job. Live: re-read when a job event arrives.
import type { ReviewItem } from '@sluice/contracts/wire';
import { useCallback, useEffect, useState } from 'react';
import { ErrorLine, message, Time } from '../components/ui.js';
import { useDebounced, useFeed } from '../live.js';
import { href } from '../route.js';
import { useSession } from '../session.js';

function Decision(props: { item: ReviewItem; onDone: () => void }) {
  const { client } = useSession();
  const [note, setNote] = useState('');
  const [error, setError] = useState('');
  const decide = (p: Promise<unknown>) =>
    p.then(props.onDone, (e: unknown) => setError(message(e)));
  const id = props.item.id;
  return (
    <form className="decision" onSubmit={(e) => e.preventDefault()}>
      <input
        aria-label={`Note for ${id}`}
        placeholder="Why (required)"
        value={note}
        required
        onChange={(e) => setNote(e.target.value)}
      />
      <button
        disabled={!note.trim()}
        onClick={() => decide(client.review.approve(id, note.trim()))}
      >
        Approve
      </button>
      <button
        disabled={!note.trim()}
        onClick={() => decide(client.review.discard(id, note.trim()))}
      >
        Discard
      </button>
      <ErrorLine error={error} />
    </form>
  );
}

export function Review() {
  const { client, can } = useSession();
  const [items, setItems] = useState<ReviewItem[] | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    client.review.list({ limit: 100 }).then(
      (r) => setItems(r.items),
      (e: unknown) => setError(message(e)),
    );
  }, [client]);
  useEffect(load, [load]);
  const reload = useDebounced(load, 200);
  useFeed((f) => 'to' in f.event && reload(), load);
  return (
    <section>
      <h2>Review queue</h2>
      <ErrorLine error={error} />
      {items === null ? (
        <p className="loading">Loading…</p>
      ) : items.length === 0 ? (
        <p className="empty">Nothing waits for a review.</p>
      ) : (
        <ul className="review">
          {items.map((it) => (
            <li key={it.id} data-job={it.id} className="panel">
              <p>
                <a href={href(`/jobs/${encodeURIComponent(it.id)}`)}>{it.id}</a> {it.kind} · parked{' '}
                <Time at={it.review.at} />
              </p>
              <p className="reason">{it.review.reason}</p>
              <p className="muted">
                unit {it.review.unitKey ?? '—'} · provider {it.review.provider ?? '—'}
              </p>
              {it.review.calls.length > 0 && (
                <table className="calls">
                  <tbody>
                    {it.review.calls.map((c, i) => (
                      <tr key={i}>
                        <td>{c.unitKey}</td>
                        <td>{c.callName}</td>
                        <td>{c.provider}</td>
                        <td>{c.outcome}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {can('review:decide') && <Decision item={it} onDone={load} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
