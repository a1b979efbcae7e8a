// The audit log (scope `jobs:manage`): who (key and label), when, what (action, target) and why
// (the note), newest first in cursor pages, filtered by action in the URL; the export downloads
// the filtered log as JSON lines.
import type { AuditEntry } from '@sluice/contracts/wire';
import { useEffect, useState } from 'react';
import { ErrorLine, message, Time } from '../components/ui.js';
import { useRoute } from '../route.js';
import { useSession } from '../session.js';

async function download(stream: ReadableStream<Uint8Array>): Promise<void> {
  const blob = await new Response(stream).blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = 'audit.jsonl';
  a.click();
  URL.revokeObjectURL(a.href);
}

export function Audit() {
  const { client, can } = useSession();
  const { params } = useRoute();
  const action = params.get('action') ?? undefined;
  const [items, setItems] = useState<AuditEntry[] | null>(null);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const cursor = cursors[cursors.length - 1] ?? null;
  useEffect(() => {
    if (!can('jobs:manage')) return;
    client.audit
      .list({ action: action as AuditEntry['action'] | undefined, cursor, limit: 50 })
      .then(
        (r) => {
          setItems(r.items);
          setNext(r.nextCursor);
        },
        (e: unknown) => setError(message(e)),
      );
  }, [client, can, action, cursor]);
  if (!can('jobs:manage')) {
    return <p className="empty">The audit log needs a key with the jobs:manage scope.</p>;
  }
  return (
    <section>
      <h2>Audit log</h2>
      <button
        onClick={() =>
          client.audit
            .export(action ? { action: action as AuditEntry['action'] } : {})
            .then(download, (e: unknown) => setError(message(e)))
        }
      >
        Export JSON lines
      </button>
      <ErrorLine error={error} />
      {items === null ? (
        <p className="loading">Loading…</p>
      ) : (
        <table className="audit">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
              <th>Target</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.id} data-action={e.action}>
                <td>
                  <Time at={e.at} />
                </td>
                <td className="who">{e.keyLabel ?? e.keyId ?? 'CLI'}</td>
                <td>{e.action}</td>
                <td>
                  <code>{e.target ?? ''}</code>
                </td>
                <td className="note">{e.note ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="pages">
        <button onClick={() => setCursors((c) => c.slice(0, -1))} disabled={cursors.length === 1}>
          ← Newer
        </button>
        <button onClick={() => next && setCursors((c) => [...c, next])} disabled={!next}>
          Older →
        </button>
      </nav>
    </section>
  );
}
