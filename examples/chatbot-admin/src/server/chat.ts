// The chat box's brain: the generated intent whose examples and answer share the most words with
// the question. Deterministic, so the end-to-end test can ask and expect.
import type { Intent } from '../jobs.js';

const STOP = new Set([
  'the',
  'and',
  'what',
  'about',
  'tell',
  'how',
  'much',
  'does',
  'for',
  'with',
  'you',
  'your',
  'are',
  'is',
  'of',
  'me',
]);

const words = (s: string) =>
  new Set(
    (s.toLowerCase().match(/[a-z0-9€$]+/g) ?? []).filter((w) => w.length >= 3 && !STOP.has(w)),
  );

export interface ChatAnswer {
  answer: string;
  intent: string | null;
  document: string | null;
  source: string | null;
}

export function answerQuestion(
  question: string,
  intents: readonly { intent: Intent; document: string }[],
): ChatAnswer {
  const asked = words(question);
  let best: { score: number; item: (typeof intents)[number] } | undefined;
  for (const item of intents) {
    const examples = words(
      [item.intent.name.replace(/[._]/g, ' '), ...item.intent.examples].join(' '),
    );
    const answer = words(item.intent.answer);
    let score = 0;
    for (const w of asked) score += (examples.has(w) ? 2 : 0) + (answer.has(w) ? 1 : 0);
    if (score > (best?.score ?? 0)) best = { score, item };
  }
  if (!best || best.score < 2) {
    return {
      answer: "I don't know that yet: upload a document that covers it.",
      intent: null,
      document: null,
      source: null,
    };
  }
  const { intent, document } = best.item;
  return { answer: intent.answer, intent: intent.name, document, source: intent.source };
}
