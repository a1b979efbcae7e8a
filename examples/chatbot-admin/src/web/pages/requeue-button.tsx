// The operator's requeue of an ended document (failed, or dead-lettered): `jobs.requeue` puts it
// back in the queue with a fresh attempt budget; its checkpoints and provider-call ledger are
// kept, so a call that was billed is not billed again. Shown only to a key with `jobs:manage`
// (the gateway checks the scope again); the answer — the job's new state, or the refusal with
// its code — is the caller's state, so it stays on the page while the document runs on.
import { useState } from 'react';
import { useSession } from '../session.js';

/** States an operator can requeue from (`jobs.requeue`). */
const REQUEUEABLE = new Set(['failed', 'dead_lettered']);

export type RequeueOutcome =
  { ok: true; state: string } | { ok: false; code: string; message: string };

export function RequeueButton(props: {
  id: string;
  state: string | undefined;
  outcome: RequeueOutcome | undefined;
  onOutcome: (outcome: RequeueOutcome) => void;
}) {
  const { client, operator } = useSession();
  const [busy, setBusy] = useState(false);
  const { outcome, onOutcome: setOutcome } = props;
  if (!operator) return null;
  const requeue = () => {
    setBusy(true);
    client.jobs
      .requeue(props.id, { note: 'requeued from the document page' })
      .then(
        (r) => setOutcome({ ok: true, state: r.state }),
        (e: Error & { code?: string }) =>
          setOutcome({ ok: false, code: e.code ?? 'ERROR', message: e.message }),
      )
      .finally(() => setBusy(false));
  };
  return (
    <div className="requeue">
      {props.state && REQUEUEABLE.has(props.state) && (
        <button onClick={requeue} disabled={busy}>
          Requeue
        </button>
      )}
      {outcome?.ok === true && (
        <p className="requeue-result" role="status" data-state={outcome.state}>
          Requeued: the document is {outcome.state} again, with a fresh attempt budget.
        </p>
      )}
      {outcome?.ok === false && (
        <p className="requeue-result error" role="alert" data-code={outcome.code}>
          Requeue refused: <code>{outcome.code}</code> {outcome.message}
        </p>
      )}
    </div>
  );
}
