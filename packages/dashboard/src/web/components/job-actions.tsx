// A job's actions, each shown only when the key's scopes allow it and the job's state can take
// it: cancel (`jobs:submit`), requeue and rerun from a unit (`jobs:manage`). The gateway checks
// both again; a refusal is shown as it comes.
import type { JobDetail } from '@sluice/contracts/wire';
import { useState } from 'react';
import { useSession } from '../session.js';
import { ErrorLine, message } from './ui.js';

const ENDED = ['succeeded', 'failed', 'dead_lettered', 'cancelled'];

export function JobActions(props: { detail: JobDetail; onDone: () => void }) {
  const { client, can } = useSession();
  const { job, units } = props.detail;
  const [note, setNote] = useState('');
  const [fromUnit, setFromUnit] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const run = (what: string, p: Promise<unknown>) =>
    p.then(
      () => {
        setDone(what);
        setError('');
        props.onDone();
      },
      (e: unknown) => setError(message(e)),
    );
  const opts = { note: note.trim() || undefined };
  const canCancel = can('jobs:submit') && !ENDED.includes(job.state);
  const canRequeue =
    can('jobs:manage') && (job.state === 'failed' || job.state === 'dead_lettered');
  const canRerun = can('jobs:manage') && ENDED.includes(job.state) && job.state !== 'cancelled';
  if (!canCancel && !canRequeue && !canRerun) return null;
  const unitKeys = units.flatMap((u) => (u.unitKey ? [u.unitKey] : []));
  return (
    <div className="actions panel" aria-label="Actions">
      <input
        aria-label="Note"
        placeholder="Why (kept in the audit log)"
        value={note}
        onChange={(e) => setNote(e.target.value)}
      />
      {canCancel && (
        <button onClick={() => run('cancelled', client.job(job.id).cancel())}>Cancel</button>
      )}
      {canRequeue && (
        <button onClick={() => run('requeued', client.jobs.requeue(job.id, opts))}>Requeue</button>
      )}
      {canRerun && (
        <>
          <select
            aria-label="Rerun from unit"
            value={fromUnit}
            onChange={(e) => setFromUnit(e.target.value)}
          >
            <option value="">every checkpoint reused</option>
            {unitKeys.map((k) => (
              <option key={k} value={k}>
                from unit {k}
              </option>
            ))}
          </select>
          <button
            onClick={() =>
              run('rerun', client.jobs.rerun(job.id, { ...opts, fromUnit: fromUnit || undefined }))
            }
          >
            Rerun
          </button>
        </>
      )}
      {done && <span className="ok">Done: {done}.</span>}
      <ErrorLine error={error} />
    </div>
  );
}
