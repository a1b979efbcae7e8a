// The fake AI's "model": deterministic answers derived from the text, so tests can assert them.
// Categories come from keywords; tables from spreadsheet rows or from text lines with `|`
// columns; intents from each table row and from each sentence that states a fact.

export interface ModelTable {
  title: string;
  columns: string[];
  rows: string[][];
}
export interface ModelIntent {
  name: string;
  examples: string[];
  answer: string;
}

const CATEGORIES: [string, RegExp][] = [
  ['pricing', /\b(price|prices|pricing|cost|costs|fee|per month|eur|usd)\b|[$€£]/i],
  ['hours', /\b(open|opening|hours|monday|tuesday|weekend|closed)\b/i],
  ['policy', /\b(refund|return|policy|warranty|cancel)\b/i],
  ['contact', /\b(email|phone|call us|contact|address)\b/i],
];

export function classify(text: string): { category: string; confidence: number } {
  for (const [category, re] of CATEGORIES) {
    const hits = text.match(new RegExp(re.source, 'gi'))?.length ?? 0;
    if (hits > 0) return { category, confidence: Math.min(0.99, 0.6 + hits * 0.1) };
  }
  return { category: 'general', confidence: 0.5 };
}

const splitCells = (line: string) => line.split('|').map((c) => c.trim());

/** Spreadsheet rows as one table; in text, runs of 2+ lines with the same number of `|` cells. */
export function extractTables(
  text: string,
  rows: string[][] | undefined,
  title: string,
): ModelTable[] {
  if (rows && rows.length >= 2) {
    return [{ title, columns: rows[0]!, rows: rows.slice(1) }];
  }
  const tables: ModelTable[] = [];
  let run: string[][] = [];
  const flush = () => {
    if (run.length >= 2)
      tables.push({
        title: `${title} table ${tables.length + 1}`,
        columns: run[0]!,
        rows: run.slice(1),
      });
    run = [];
  };
  for (const line of text.split('\n')) {
    const cells = line.includes('|') ? splitCells(line) : [];
    if (cells.length >= 2 && (run.length === 0 || cells.length === run[0]!.length)) run.push(cells);
    else {
      flush();
      if (cells.length >= 2) run.push(cells);
    }
  }
  flush();
  return tables;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 40) || 'item';

export function generateIntents(input: {
  text: string;
  category: string;
  tables: ModelTable[];
}): ModelIntent[] {
  const intents: ModelIntent[] = [];
  for (const table of input.tables) {
    const [key, ...rest] = table.columns;
    for (const row of table.rows) {
      const subject = row[0] ?? '';
      if (!subject) continue;
      const facts = rest.map((c, i) => `${c}: ${row[i + 1] ?? ''}`).join(', ');
      intents.push({
        name: `${input.category}.${slug(subject)}`,
        examples: [
          `What about ${subject}?`,
          ...rest.map((c) => `What is the ${c.toLowerCase()} of ${subject}?`),
          `Tell me about ${key ?? 'the'} ${subject}`,
        ],
        answer: `${subject} — ${facts}.`,
      });
    }
  }
  const tableLines = new Set(
    input.tables.flatMap((t) => [t.columns, ...t.rows].map((r) => r.join('|'))),
  );
  const sentences = input.text
    .split('\n')
    .filter((l) => !l.includes('|') || !tableLines.has(splitCells(l).join('|')))
    .join(' ')
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= 4 && !s.includes('|'));
  for (const sentence of sentences.slice(0, 20)) {
    const words = sentence.toLowerCase().match(/[a-z]{4,}/g) ?? [];
    intents.push({
      name: `${input.category}.${slug(words.slice(0, 3).join(' '))}`,
      examples: [sentence.replace(/[.!]$/, '?'), words.slice(0, 4).join(' ')],
      answer: sentence,
    });
  }
  return intents;
}

const STOPWORDS = new Set(
  'about after also been before being from have here into many more most only other over such than that their them then there these they this were what when where which while with within your'.split(
    ' ',
  ),
);

/** The "v2 prompt": the text's most frequent content words (4+ letters), ties by first use. */
export function keywords(text: string, max = 5): string[] {
  const counts = new Map<string, number>();
  for (const word of text.toLowerCase().match(/[a-z]{4,}/g) ?? [])
    if (!STOPWORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, max)
    .map(([w]) => w);
}
