// Figures of the reliability tests: printed, and appended to reports/reliability/streams.jsonl
// (git-ignored) for the performance notes.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Prints the figures and appends them to reports/reliability/streams.jsonl (git-ignored). */
export function recordFigures(scenario: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ scenario, at: new Date().toISOString(), ...figures });
  console.log(`[figures] ${line}`);
  try {
    const dir = join(root, 'reports/reliability');
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, 'streams.jsonl'), `${line}\n`);
  } catch {
    // the console line is enough
  }
}
