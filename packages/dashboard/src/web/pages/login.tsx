// Login: paste an API key; `auth.whoami` says whether it is valid and what it may do.
import { useState } from 'react';
import { signIn, type Session } from '../session.js';

export function Login(props: { onSession: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="login"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        signIn(key.trim())
          .then(props.onSession, (err: Error) => setError(err.message))
          .finally(() => setBusy(false));
      }}
    >
      <h1>Sluice dashboard</h1>
      <p>
        Paste an API key (<code>sluice keys create</code>). It is kept in this tab only and sent to
        this gateway only.
      </p>
      <input
        name="apiKey"
        aria-label="API key"
        autoFocus
        autoComplete="off"
        value={key}
        onChange={(e) => setKey(e.target.value)}
        placeholder="sk_…"
      />
      <button type="submit" disabled={busy || key.trim() === ''}>
        Sign in
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
