// The chat box: questions answered from the intents this tenant's documents generated.
import { useState } from 'react';
import { api } from '../api.js';
import { useSession } from '../session.js';

interface Answer {
  answer: string;
  intent: string | null;
  document: string | null;
  source: string | null;
}

export function Chat() {
  const { apiKey } = useSession();
  const [question, setQuestion] = useState('');
  const [log, setLog] = useState<{ q: string; a: Answer }[]>([]);
  const [error, setError] = useState('');
  return (
    <section className="chat">
      <h2>Chat</h2>
      <ol className="chat-log">
        {log.map((m, i) => (
          <li key={i}>
            <div className="q">{m.q}</div>
            <div className="a" data-intent={m.a.intent ?? ''}>
              {m.a.answer}
              {m.a.document && (
                <small>
                  {' '}
                  — from {m.a.document}, {m.a.source}
                </small>
              )}
            </div>
          </li>
        ))}
      </ol>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const q = question.trim();
          if (!q) return;
          api<Answer>(apiKey, '/api/chat', { question: q }).then(
            (a) => (setLog((l) => [...l, { q, a }]), setQuestion(''), setError('')),
            (err: Error) => setError(err.message),
          );
        }}
      >
        <input
          aria-label="Question"
          name="question"
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          placeholder="Ask what the bot has learned…"
        />
        <button type="submit">Ask</button>
      </form>
      {error && <p className="error">{error}</p>}
    </section>
  );
}
