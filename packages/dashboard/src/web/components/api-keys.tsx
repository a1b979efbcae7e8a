// The tenant's API keys (scope `admin`): list, create (the secret is shown once, here), revoke.
// Both writes are in the audit log with the note.
import {
  API_KEY_SCOPES,
  type ApiKeyScope,
  type ApiKeyView,
  type KeyCreateResult,
} from '@sluice/contracts/wire';
import { useCallback, useEffect, useState } from 'react';
import { useSession } from '../session.js';
import { ErrorLine, message, Time } from './ui.js';

function CreateKey(props: { onCreated: () => void }) {
  const { client } = useSession();
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['jobs:read']);
  const [note, setNote] = useState('');
  const [created, setCreated] = useState<KeyCreateResult | null>(null);
  const [error, setError] = useState('');
  const toggle = (s: ApiKeyScope) =>
    setScopes((all) => (all.includes(s) ? all.filter((x) => x !== s) : [...all, s]));
  return (
    <form
      className="actions"
      aria-label="Create key"
      onSubmit={(e) => {
        e.preventDefault();
        client.keys
          .create({ label: label.trim(), scopes, ...(note.trim() ? { note: note.trim() } : {}) })
          .then(
            (k) => {
              setCreated(k);
              setError('');
              props.onCreated();
            },
            (err: unknown) => setError(message(err)),
          );
      }}
    >
      <input
        aria-label="Key label"
        placeholder="label"
        value={label}
        onChange={(e) => setLabel(e.target.value)}
      />
      {API_KEY_SCOPES.map((s) => (
        <label key={s}>
          <input type="checkbox" checked={scopes.includes(s)} onChange={() => toggle(s)} /> {s}
        </label>
      ))}
      <input
        aria-label="Key note"
        placeholder="why"
        value={note}
        onChange={(e) => setNote(e.target.value)}
      />
      <button type="submit" disabled={!label.trim() || scopes.length === 0}>
        Create key
      </button>
      {created && (
        <p className="ok" role="status">
          Key {created.id} (shown once): <code data-testid="new-key">{created.key}</code>
        </p>
      )}
      <ErrorLine error={error} />
    </form>
  );
}

export function ApiKeys() {
  const { client, who } = useSession();
  const [keys, setKeys] = useState<ApiKeyView[]>([]);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    client.keys.list().then(
      (r) => setKeys(r.items),
      (e: unknown) => setError(message(e)),
    );
  }, [client]);
  useEffect(load, [load]);
  return (
    <div className="panel">
      <h3>API keys</h3>
      <CreateKey onCreated={load} />
      <ErrorLine error={error} />
      <table className="keys">
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} data-key={k.id} data-revoked={k.revokedAt !== null}>
              <td>
                <code>{k.id}</code>
              </td>
              <td>{k.label ?? ''}</td>
              <td>{k.scopes.join(' ')}</td>
              <td>
                used <Time at={k.lastUsedAt} />
              </td>
              <td>
                {k.revokedAt ? (
                  <>
                    revoked <Time at={k.revokedAt} />
                  </>
                ) : k.id === who.keyId ? (
                  'this key'
                ) : (
                  <button
                    onClick={() =>
                      client.keys.revoke(k.id).then(load, (e: unknown) => setError(message(e)))
                    }
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
