// The Node range is one promise, kept everywhere: every workspace package.json declares the root's
// `engines.node`, and `npm start` / `npm test` / `npm run demo:client` on an older Node stop before
// doing anything, with one line that names the version and `scripts/node24.sh`. Without the check
// an old Node fails deep inside a dependency (a native addon that crashes, a syntax error in a test
// runner) with an error that names neither the cause nor the fix.
//
// An older Node is emulated with a preload that overwrites `process.version` in every process of
// the command (npm's and the check's), injected through NODE_OPTIONS from here.

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './deploy/load.js';

interface Manifest {
  name: string;
  engines?: { node?: string };
}
const readManifest = (dir: string) =>
  JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
const root = readManifest('.');
const workspaces = ['packages', 'examples']
  .flatMap((group) => readdirSync(join(ROOT, group)).map((d) => join(group, d)))
  .concat('bench')
  .map(readManifest);

// npm_* settings from an outer `npm test` would make the inner npm run in that workspace.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
);
const scratch = mkdtempSync(join(tmpdir(), 'sluice-node-version-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `cmd args` in the repository root with `process.version` reading `version`. */
function runAs(version: string, cmd: string, args: string[]) {
  const preload = join(scratch, `node-${version}.mjs`);
  writeFileSync(
    preload,
    `Object.defineProperty(process, 'version', { value: ${JSON.stringify(version)} });\n`,
  );
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: ROOT, env: { ...env, NODE_OPTIONS: `--import=${preload}` }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const refusal = (version: string) =>
  new RegExp(
    `^sluice: this is Node ${version.replace(/\./g, '\\.')}; Sluice needs Node >=22\\.12 .*` +
      'Run `source scripts/node24.sh`',
    'm',
  );

describe('the supported Node range', () => {
  it('is >=22.12, declared by the root and every workspace package alike', () => {
    expect(root.engines?.node).toBe('>=22.12');
    for (const p of workspaces) expect(p.engines?.node, p.name).toBe(root.engines?.node);
  });

  it.each(['v22.12.0', 'v22.23.5', 'v24.22.3', 'v26.0.0'])(
    'lets %s through without a word',
    async (version) => {
      const r = await runAs(version, process.execPath, ['scripts/check-node.mjs']);
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    },
  );

  it.each(['v20.20.2', 'v22.11.0', 'v18.20.8'])(
    'stops %s with one line naming scripts/node24.sh',
    async (version) => {
      const r = await runAs(version, process.execPath, ['scripts/check-node.mjs']);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(refusal(version));
    },
  );
});

describe('npm start, npm test and npm run demo:client on a Node below engines', () => {
  it.each([['start'], ['test'], ['demo:client']])(
    'npm %s refuses at once, before any service, server or client starts',
    async (script) => {
      const r = await runAs('v20.20.2', 'npm', ['run', script]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(refusal('v20.20.2'));
      // Nothing after the check ran: no services script, no gateway, no client.
      expect(r.stdout).not.toMatch(/services\.sh:|listening|submitted/);
      expect(r.stdout).toMatch(new RegExp(`> pre${script}\\n> node scripts/check-node\\.mjs`));
    },
  );
});
