// Bulk requeue over the page's filter: a dry run counts what would move, then ONE tracked bulk
// operation (idempotent by its operation key, so a double click starts one) runs in the gateway.
// Its progress is re-read when the feed reports job events (the requeues themselves), not polled.
import type { BulkOperationView, JobFilter } from '@sluice/contracts/wire';
import { useState } from 'react';
import { useDebounced, useFeed } from '../live.js';
import { useSession } from '../session.js';
import { ErrorLine, message } from './ui.js';

export function BulkRequeue(props: { filter: JobFilter; onFinished: () => void }) {
  const { client } = useSession();
  const [count, setCount] = useState<number | null>(null);
  const [note, setNote] = useState('');
  const [op, setOp] = useState<BulkOperationView | null>(null);
  const [opKey] = useState(() => crypto.randomUUID());
  const [error, setError] = useState('');
  const fail = (e: unknown) => setError(message(e));
  const refresh = () => {
    if (!op || op.state !== 'running') return;
    client.bulk.get(op.id).then((o) => {
      setOp(o);
      if (o.state !== 'running') props.onFinished();
      // The last job event can arrive before the operation's own row is updated.
      else settle();
    }, fail);
  };
  const settle = useDebounced(refresh, 1000);
  const reread = useDebounced(refresh, 100);
  useFeed(reread, reread);
  const running = op?.state === 'running';
  return (
    <div className="panel bulk" aria-label="Bulk requeue">
      <h3>Bulk requeue</h3>
      <button
        onClick={() =>
          client.bulk.preview('requeue', props.filter).then((p) => setCount(p.count), fail)
        }
        disabled={running}
      >
        Dry run
      </button>
      {count !== null && (
        <>
          <span className="preview" data-count={count}>
            {count} job{count === 1 ? '' : 's'} would be requeued.
          </span>
          <input
            aria-label="Bulk note"
            placeholder="Why (kept in the audit log)"
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
          <button
            disabled={count === 0 || op !== null}
            onClick={() =>
              client.bulk
                .start({
                  action: 'requeue',
                  filter: props.filter,
                  operationKey: opKey,
                  note: note.trim() || undefined,
                })
                .then((o) => {
                  setOp(o);
                  settle();
                }, fail)
            }
          >
            Requeue {count}
          </button>
        </>
      )}
      {op && (
        <p className="progress" data-state={op.state} data-processed={op.processed}>
          <progress max={op.total || 1} value={op.processed} /> {op.processed}/{op.total} processed
          · {op.applied} requeued · {op.skipped} skipped · {op.failed} failed · {op.state}
          {op.error ? ` · ${op.error}` : ''}
        </p>
      )}
      <ErrorLine error={error} />
    </div>
  );
}
