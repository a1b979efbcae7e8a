// deploy/Dockerfile and the app manifest it installs: node:24-slim, a non-root user, the sluice
// bin as the exec-form entrypoint, every publishable package built and packed, tarball names that
// `npm pack` really produces, drivers pinned to the versions the workspace tests run against;
// and the settings table of docs/configuration.md lists exactly the variables sluice reads. (No Docker here: the
// install path itself is what pack-install.test.ts runs.)

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandsOf, knownSettings, sluiceProgram } from './deploy/known-settings.js';
import { DEPLOY, ROOT } from './deploy/load.js';

interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  overrides?: Record<string, string>;
}
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as PackageJson;

const dockerfile = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8')
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const instructions = (name: string) =>
  dockerfile.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));

// What the image runs is servers; a browser-only library has no place in it (named here, with
// why, so a new publishable package is still checked unless someone says it does not belong).
const NOT_IN_IMAGE: Record<string, string> = {
  '@sluice/react': 'React hooks for browser apps: nothing in a gateway or worker imports them',
};
const publishable = readdirSync(join(ROOT, 'packages'))
  .map((dir) => readJson(join(ROOT, 'packages', dir, 'package.json')))
  .filter((p) => !p.private && p.scripts?.prepack && !(p.name in NOT_IN_IMAGE));
const app = readJson(join(DEPLOY, 'image', 'package.json'));

describe('deploy/Dockerfile', () => {
  it('builds on node:24-slim and runs as a non-root user', () => {
    expect(instructions('ARG')).toContain('NODE_IMAGE=node:24-slim');
    for (const from of instructions('FROM')) expect(from).toMatch(/^\$\{NODE_IMAGE\}( AS \w+)?$/);
    const users = instructions('USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  });

  it('runs the sluice bin as PID 1 (exec form), gateway by default', () => {
    const entrypoint = JSON.parse(instructions('ENTRYPOINT').at(-1) as string) as string[];
    expect(entrypoint).toEqual(['node', '/app/node_modules/@sluice/cli/bin/sluice.js']);
    const cmd = JSON.parse(instructions('CMD').at(-1) as string) as string[];
    expect(commandsOf(sluiceProgram()).map((c) => c.name())).toContain(cmd[0]);
  });

  it('builds and packs every publishable package', () => {
    const build = instructions('RUN').find((r) => r.includes('npm run build')) ?? '';
    const pack = instructions('RUN').find((r) => r.includes('npm pack')) ?? '';
    expect(publishable.length).toBeGreaterThanOrEqual(6);
    for (const p of publishable) {
      expect(build).toContain(`-w ${p.name}`);
      expect(pack).toContain(`-w ${p.name}`);
    }
  });

  it('sets only variables sluice reads (and NODE_ENV)', async () => {
    const known = await knownSettings();
    const names = instructions('ENV')
      .join(' ')
      .split(/\s+/)
      .map((kv) => kv.split('=')[0] as string);
    expect(names.filter((n) => n !== 'NODE_ENV' && !known.has(n))).toEqual([]);
  });
});

describe('deploy/image/package.json (what the image installs)', () => {
  it('installs each publishable package from the tarball npm pack names, overriding its copies', () => {
    for (const p of publishable) {
      const tarball = `${p.name.replace(/^@/, '').replace('/', '-')}-${p.version}.tgz`;
      expect(app.dependencies?.[p.name]).toBe(`file:/packs/${tarball}`);
      expect(app.overrides?.[p.name]).toBe(`$${p.name}`);
    }
  });

  it('pins every other dependency to the version the workspace tests run against', () => {
    const others = Object.entries(app.dependencies ?? {}).filter(
      ([n]) => !n.startsWith('@sluice/'),
    );
    expect(others.map(([n]) => n)).toEqual(
      expect.arrayContaining([
        'pg',
        'iovalkey',
        '@aws-sdk/client-s3',
        '@aws-sdk/lib-storage',
        'zod',
      ]),
    );
    for (const [name, version] of others)
      expect(version, name).toBe(
        readJson(join(ROOT, 'node_modules', name, 'package.json')).version,
      );
  });
});

describe("docs/configuration.md's settings table", () => {
  it('lists exactly the environment variables sluice reads', async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    const section = doc.slice(doc.indexOf('\n## Settings\n'));
    const table = section.slice(0, section.indexOf('\n\n', section.indexOf('\n|')));
    const listed = new Set(
      [...table.matchAll(/`([A-Z][A-Z0-9_]*(?:<KIND>)?)`/g)].map((m) => m[1] as string),
    );
    expect([...listed].sort()).toEqual([...(await knownSettings())].sort());
  });
});
