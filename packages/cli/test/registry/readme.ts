// Reads what the README tells a newcomer to run: the Install section's command block, the files of
// "Your first job" (each ```ts block whose first line is `// <path>`) and its run commands.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Block {
  lang: string;
  text: string;
}

function section(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

function blocks(text: string): Block[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] ?? '',
    text: m[2] ?? '',
  }));
}

/** A shell line without its trailing `# comment`. */
const command = (line: string) => line.replace(/\s+#.*$/, '').trim();

export interface ReadmeApp {
  /** The Install section's first sh block: the commands, one a line. */
  install: string[];
  /** "Your first job": file path → contents. */
  files: Record<string, string>;
  /** "Your first job": its sh block, one command a line. */
  run: string[];
}

export function readReadmeApp(root: string): ReadmeApp {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const install = blocks(section(readme, 'Install')).find((b) => b.lang === 'sh');
  if (!install) throw new Error('README "Install" has no sh block');
  const first = blocks(section(readme, 'Your first job'));
  const files: Record<string, string> = {};
  for (const b of first.filter((b) => b.lang === 'ts')) {
    const path = /^\/\/ (\S+\.ts)\n/.exec(b.text)?.[1];
    if (path) files[path] = b.text;
  }
  const run = first.find((b) => b.lang === 'sh');
  if (!run) throw new Error('README "Your first job" has no sh block');
  const lines = (b: Block) => b.text.split('\n').map(command).filter(Boolean);
  return { install: lines(install), files, run: lines(run) };
}
