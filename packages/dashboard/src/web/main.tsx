// The operator UI: sign in with an API key, then pages by URL hash (#/overview, #/jobs,
// #/jobs/<id>, #/review, #/dead-letters, #/audit). Live data comes over the client's WebSocket.
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Audit } from './pages/audit.js';
import { DeadLetters } from './pages/dead-letters.js';
import { JobDetailPage } from './pages/job-detail.js';
import { Jobs } from './pages/jobs.js';
import { Login } from './pages/login.js';
import { Overview } from './pages/overview.js';
import { Review } from './pages/review.js';
import { useRoute } from './route.js';
import { forgetKey, savedKey, SessionContext, signIn, type Session } from './session.js';
import './styles.css';

const NAV = [
  ['/overview', 'Overview'],
  ['/jobs', 'Jobs'],
  ['/review', 'Review'],
  ['/dead-letters', 'Dead letters'],
  ['/audit', 'Audit'],
] as const;

/** `/` focuses the page's first field (the search filters), as in most consoles. */
function useSlashToSearch(): void {
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.key !== '/' || target?.closest('input, select, textarea')) return;
      const first = document.querySelector<HTMLElement>('main input, main select');
      if (!first) return;
      e.preventDefault();
      first.focus();
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, []);
}

function Shell(props: { session: Session; onLogout: () => void }) {
  const { path } = useRoute();
  useSlashToSearch();
  const { who } = props.session;
  const detail = /^\/jobs\/(.+)$/.exec(path)?.[1];
  let page;
  if (detail) page = <JobDetailPage id={decodeURIComponent(detail)} />;
  else if (path === '/overview') page = <Overview />;
  else if (path === '/review') page = <Review />;
  else if (path === '/dead-letters') page = <DeadLetters />;
  else if (path === '/audit') page = <Audit />;
  else page = <Jobs />;
  return (
    <>
      <header>
        <strong>Sluice</strong>
        <nav>
          {NAV.map(([p, label]) => (
            <a
              key={p}
              href={`#${p}`}
              className={path.startsWith(p) ? 'active' : ''}
              aria-current={path.startsWith(p) ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        <span className="who" data-key-id={who.keyId} title={who.scopes.join(' ')}>
          {who.label ?? who.keyId} · {who.tenantId} · {who.scopes.join(', ')}
        </span>
        <button onClick={props.onLogout}>Sign out</button>
      </header>
      <main>{page}</main>
    </>
  );
}

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => savedKey() !== null);
  useEffect(() => {
    const key = savedKey();
    if (!key) return;
    signIn(key)
      .then(setSession, () => forgetKey())
      .finally(() => setRestoring(false));
  }, []);
  useEffect(() => () => void session?.client.close(), [session]);
  if (restoring) return <p className="loading">Signing in…</p>;
  if (!session) return <Login onSession={setSession} />;
  return (
    <SessionContext.Provider value={session}>
      <Shell
        session={session}
        onLogout={() => {
          forgetKey();
          setSession(null);
        }}
      />
    </SessionContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
