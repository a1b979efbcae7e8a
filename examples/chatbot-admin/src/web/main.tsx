// The admin app: a login with a tenant's API key, then pages by URL hash (#/documents,
// #/documents/<id>, #/review, #/dead-letters, #/metrics, #/chat, #/faults); #/approve/<token>
// needs no login: the approval link is its own authority.
import { SluiceProvider } from '@sluice/react';
import { StrictMode, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, makeClient } from './api.js';
import { Approval } from './pages/approval.js';
import { Chat } from './pages/chat.js';
import { DeadLetters } from './pages/dead-letters.js';
import { DocumentDetail } from './pages/document-detail.js';
import { Documents } from './pages/documents.js';
import { Faults } from './pages/faults.js';
import { Metrics } from './pages/metrics.js';
import { Review } from './pages/review.js';
import { SessionContext, type Session } from './session.js';
import './styles.css';

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/documents');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/documents');
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

interface LoginInfo {
  apiKey: string;
  tenant: string;
  operator: boolean;
}

function Login(props: { onLogin: (login: LoginInfo) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  return (
    <form
      className="login"
      onSubmit={(e) => {
        e.preventDefault();
        api<{ tenant: string; operator?: boolean }>(key.trim(), '/api/whoami').then(
          (r) => props.onLogin({ apiKey: key.trim(), tenant: r.tenant, operator: !!r.operator }),
          () => setError('That API key is not valid.'),
        );
      }}
    >
      <h1>Chatbot admin</h1>
      <p>Paste a tenant's API key (the server prints two demo logins when it starts).</p>
      <input
        name="apiKey"
        aria-label="API key"
        value={key}
        onChange={(e) => setKey(e.target.value)}
        placeholder="sk_…"
      />
      <button type="submit">Sign in</button>
      {error && <p className="error">{error}</p>}
    </form>
  );
}

const NAV = [
  ['#/documents', 'Documents'],
  ['#/review', 'Review queue'],
  ['#/dead-letters', 'Dead letters'],
  ['#/metrics', 'Metrics'],
  ['#/chat', 'Chat'],
  ['#/faults', 'Fault knobs'],
] as const;

function Shell(props: { session: Session; onLogout: () => void }) {
  const hash = useHash();
  const detail = /^#\/documents\/(.+)$/.exec(hash)?.[1];
  let page;
  if (detail) page = <DocumentDetail id={decodeURIComponent(detail)} />;
  else if (hash.startsWith('#/review')) page = <Review />;
  else if (hash.startsWith('#/dead-letters')) page = <DeadLetters />;
  else if (hash.startsWith('#/metrics')) page = <Metrics />;
  else if (hash.startsWith('#/chat')) page = <Chat />;
  else if (hash.startsWith('#/faults')) page = <Faults />;
  else page = <Documents />;
  return (
    <>
      <header>
        <strong>Chatbot admin</strong>
        <nav>
          {NAV.map(([href, label]) => (
            <a key={href} href={href} className={hash.startsWith(href) ? 'active' : ''}>
              {label}
            </a>
          ))}
        </nav>
        <span className="tenant" data-tenant={props.session.tenant}>
          {props.session.tenant}
        </span>
        <button onClick={props.onLogout}>Sign out</button>
      </header>
      <main>{page}</main>
    </>
  );
}

function App() {
  const hash = useHash();
  const approve = /^#\/approve\/(.+)$/.exec(hash)?.[1];
  return approve ? <Approval token={decodeURIComponent(approve)} /> : <Admin />;
}

function Admin() {
  const [login, setLogin] = useState(() => {
    const saved = sessionStorage.getItem('login');
    const parsed = saved ? (JSON.parse(saved) as Partial<LoginInfo>) : null;
    return parsed?.apiKey && parsed.tenant
      ? { apiKey: parsed.apiKey, tenant: parsed.tenant, operator: !!parsed.operator }
      : null;
  });
  const session = useMemo<Session | null>(
    () => (login ? { ...login, client: makeClient(login.apiKey) } : null),
    [login],
  );
  useEffect(() => () => void session?.client.close(), [session]);
  if (!session) {
    return (
      <Login
        onLogin={(info) => {
          sessionStorage.setItem('login', JSON.stringify(info));
          setLogin(info);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <SluiceProvider client={session.client}>
        <Shell
          session={session}
          onLogout={() => {
            sessionStorage.removeItem('login');
            setLogin(null);
          }}
        />
      </SluiceProvider>
    </SessionContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
