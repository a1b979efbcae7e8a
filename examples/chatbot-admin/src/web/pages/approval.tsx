// The approval link's page (#/approve/<token>): whoever holds the link decides, without signing
// in. It reads the token's status and completes it with the decision; the browser sends no API
// key — the token is the authority, it is single use, and the gateway refuses a replay (409).
import { useEffect, useState } from 'react';

interface TokenStatus {
  status: 'open' | 'used' | 'expired' | 'cancelled';
  event: string;
  expiresAt: string;
  usedAt: string | null;
}

type Outcome = { decided: 'approved' | 'rejected' } | { refused: string };

/** The token's route, plain fetch: no authorization header, no cookies needed. */
async function tokenCall(token: string, body?: unknown) {
  const res = await fetch(`/v1/tokens/${encodeURIComponent(token)}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json().catch(() => null)) as
    (TokenStatus & { error?: { code?: string; message?: string } }) | null;
  return { ok: res.ok, status: res.status, json };
}

export function Approval(props: { token: string }) {
  const [status, setStatus] = useState<TokenStatus>();
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void tokenCall(props.token).then((r) =>
      r.ok && r.json
        ? setStatus(r.json)
        : setOutcome({ refused: r.json?.error?.code ?? `HTTP ${r.status}` }),
    );
  }, [props.token]);

  async function decide(approved: boolean) {
    setBusy(true);
    const r = await tokenCall(props.token, { payload: { approved, by: 'approval link' } });
    setBusy(false);
    setOutcome(
      r.ok
        ? { decided: approved ? 'approved' : 'rejected' }
        : { refused: r.json?.error?.code ?? `HTTP ${r.status}` },
    );
  }

  const state = outcome
    ? 'decided' in outcome
      ? outcome.decided
      : 'refused'
    : (status?.status ?? 'loading');
  return (
    <main>
      <section className="approval" data-approval={state}>
        <h2>Approve a paid analysis</h2>
        <p>
          A document was converted for free; analysing it calls the paid AI provider once per unit.
          Nothing is billed until you approve.
        </p>
        {status && (
          <p>
            Link <strong>{status.status}</strong>, valid until{' '}
            {new Date(status.expiresAt).toLocaleString()}
          </p>
        )}
        {status?.status === 'open' && !outcome && (
          <p>
            <button disabled={busy} onClick={() => void decide(true)}>
              Approve
            </button>{' '}
            <button className="secondary" disabled={busy} onClick={() => void decide(false)}>
              Reject
            </button>
          </p>
        )}
        {outcome && 'decided' in outcome && (
          <p className="decided">
            {outcome.decided === 'approved'
              ? 'Approved: the analysis runs now.'
              : 'Rejected: the document will not be analysed.'}
          </p>
        )}
        {outcome && 'refused' in outcome && (
          <p className="error" role="alert" data-code={outcome.refused}>
            This link cannot be used: <code>{outcome.refused}</code>
          </p>
        )}
      </section>
    </main>
  );
}
