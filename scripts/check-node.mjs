// Stops `npm start` and `npm test` at once, with one line that says what to do, when the Node
// running them is older than the root package.json's `engines` range. Without it an old Node gets
// as far as a dependency that needs a newer one and fails there with an error that names neither
// the version nor the fix. Plain JavaScript with no imports beyond Node's own, so it runs on any
// Node before anything is installed.
//
//   node scripts/check-node.mjs        # exit 0 silently, or exit 1 with the message on stderr

import { readFileSync } from 'node:fs';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

/** `engines.node` as this script reads it: a lower bound, `>=MAJOR[.MINOR[.PATCH]]`. */
export function parseMinimum(range) {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(range).trim());
  if (!m) throw new Error(`check-node: engines.node "${range}" is not of the form ">=X.Y.Z"`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

/** The message for a Node older than `range`, or null when `version` satisfies it. */
export function nodeVersionProblem(version, range) {
  const min = parseMinimum(range);
  const have = String(version)
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > min[i]) return null;
    if ((have[i] ?? 0) < min[i]) {
      return (
        `sluice: this is Node ${version}; Sluice needs Node ${range} (24 LTS recommended). ` +
        'Run `source scripts/node24.sh` in this shell first: it installs Node 24 from the npm ' +
        'registry into .tools/ and puts it first on PATH.'
      );
    }
  }
  return null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const problem = nodeVersionProblem(process.version, manifest.engines.node);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
