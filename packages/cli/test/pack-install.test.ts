// The published packages install and run anywhere: `npm pack` every publishable package (its
// prepack builds dist), install the tarballs into a fresh app OUTSIDE the workspace, type-check a
// typed job definition, handler, config and client against the published .d.ts, and run a job end
// to end on SQLite through the installed `sluice` bin. Catches exports that point at files the
// tarball lacks, types that only resolve through the workspace's source condition, a hard
// dependency on an optional driver, and a bin that needs the repository to run.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/cli-errors.js';
import { runCommand, startCommand, type RunningCommand } from './run-command.js';
import { APP_FILES } from './fixtures/pack-app.js';
import { buildPackages } from './registry/workspace-packages.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** What the app installs (the publishable packages but react and testkit). */
const PACKAGES = [
  'contracts',
  'storage',
  'client',
  'gateway',
  'worker',
  'runtime-valkey-streams',
  'runtime-cloudflare-workflows',
  'runtime-nats',
  'dashboard',
  'cli',
];
/** Third-party packages the app adds itself, at the versions the workspace installed. */
const APP_DEPS = ['zod', 'better-sqlite3', 'ws'];
const APP_DEV_DEPS = ['typescript', '@types/node', '@types/ws'];

// The outer `npm test` puts npm_* settings (prefix, workspace, lifecycle) in the environment;
// the app's npm must not inherit them.
const env: Record<string, string | undefined> = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
);

const timings: Record<string, number> = {};
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    timings[name] = Math.round(performance.now() - t0);
  }
}

const installedVersion = (name: string) =>
  (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

const work = mkdtempSync(join(tmpdir(), 'sluice-pack-'));
const packs = join(work, 'packs');
const app = join(work, 'app');
const bin = join(app, 'node_modules', '.bin', 'sluice');
let dev: RunningCommand | undefined;

beforeAll(async () => {
  mkdirSync(packs);
  mkdirSync(app);
  const tarballs: Record<string, string> = {};
  // Each package's prepack is `npm run build` (asserted below and by the install-by-name test);
  // turbo runs those builds here, dependencies first, then one npm call packs them all without
  // running them again. Through turbo, the install-by-name test's build of the same sources is
  // a cache hit instead of a second full build.
  await timed('build (the prepack scripts)', () =>
    buildPackages(
      ROOT,
      PACKAGES.map((name) => `@sluice/${name}`),
      env,
    ),
  );
  await timed('npm pack', async () => {
    const { stdout } = await run(
      'npm',
      [
        'pack',
        ...PACKAGES.flatMap((name) => ['-w', `@sluice/${name}`]),
        '--ignore-scripts',
        '--pack-destination',
        packs,
        '--json',
      ],
      { cwd: ROOT, env, maxBuffer: 64 << 20 },
    );
    for (const info of JSON.parse(stdout) as { name: string; filename: string }[])
      tarballs[info.name] = `file:${join(packs, info.filename)}`;
  });
  const pin = (names: string[]) => Object.fromEntries(names.map((n) => [n, installedVersion(n)]));
  const pkg = {
    name: 'sluice-pack-app',
    private: true,
    type: 'module',
    dependencies: { ...tarballs, ...pin(APP_DEPS) },
    devDependencies: pin(APP_DEV_DEPS),
    // The packages depend on each other by version; point those at the tarballs as well.
    overrides: Object.fromEntries(Object.keys(tarballs).map((n) => [n, `$${n}`])),
  };
  writeFileSync(join(app, 'package.json'), JSON.stringify(pkg, null, 2));
  for (const [file, text] of Object.entries(APP_FILES)) writeFileSync(join(app, file), text);
  await timed('npm install', () =>
    run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
      ],
      { cwd: app, env, maxBuffer: 64 << 20 },
    ),
  );
}, 600_000);

afterAll(async () => {
  dev?.kill();
  await dev?.exited;
  console.log(`pack-install timings (ms): ${JSON.stringify(timings)}`);
  // The app's node_modules is a few hundred MB: do not leave one per run in the temp folder.
  rmSync(work, { recursive: true, force: true });
});

describe('the packed packages installed outside the workspace', () => {
  it('build on prepack', () => {
    for (const name of PACKAGES) {
      const manifest = JSON.parse(
        readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'),
      ) as { scripts: Record<string, string> };
      expect(manifest.scripts.prepack, name).toBe('npm run build');
    }
  });

  it('ship dist, declarations and a LICENSE, and no tests', async () => {
    const cli = join(app, 'node_modules', '@sluice', 'cli');
    expect(existsSync(join(cli, 'dist', 'main.js'))).toBe(true);
    expect(existsSync(join(cli, 'dist', 'main.d.ts.map'))).toBe(true);
    expect(existsSync(join(cli, 'LICENSE'))).toBe(true);
    expect(existsSync(join(cli, 'tsconfig.json'))).toBe(false);
    expect(existsSync(join(cli, 'test'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', '@sluice', 'testkit'))).toBe(false);
  });

  it('install no optional driver the app did not ask for', () => {
    expect(existsSync(join(app, 'node_modules', 'pg'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'iovalkey'))).toBe(false);
  });

  it('type-check the app (wrong inputs and outputs fail to compile)', async () => {
    const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = await timed('tsc', () =>
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, env }).then(
        () => ({ ok: true, out: '' }),
        (e: { stdout?: string }) => ({ ok: false, out: e.stdout ?? String(e) }),
      ),
    );
    expect(r.out).toBe('');
    expect(r.ok).toBe(true);
  });

  it('run a job end to end on SQLite: typed client → gateway → worker → typed result', async () => {
    const key = await timed('sluice keys create', () =>
      runCommand(bin, ['keys', 'create', '--tenant', 'app'], { cwd: app, env }),
    );
    expect(key.stderr).toBe('');
    const apiKey = key.stdout.trim().split('\n').at(-1) as string;
    const port = await freePort();
    await timed('sluice dev start', async () => {
      dev = startCommand(bin, ['dev', '--port', String(port)], { cwd: app, env });
      await dev.waitForLine(/gateway listening on /, 60_000);
    });
    const client = await timed('client submit → result', () =>
      runCommand(process.execPath, ['--import', 'tsx', 'client.ts'], {
        cwd: app,
        env: { ...env, SLUICE_URL: `http://127.0.0.1:${port}`, SLUICE_API_KEY: apiKey },
      }),
    );
    expect(client.stderr).toBe('');
    expect(JSON.parse(client.stdout)).toEqual({ greeting: 'hello, Ada', letters: 3 });
    const stopped = await (dev as RunningCommand).stop();
    expect(stopped.stdout).toMatch(/sluice dev: stopped/);
    expect(stopped.code).toBe(0);
  });

  it.each([
    [['gateway', '--runtime', 'valkey-streams', '--redis-url', 'redis://127.0.0.1:1'], 'iovalkey'],
    [['migrate', '--database', 'postgres://127.0.0.1:1/none'], 'pg'],
  ])('name the optional driver to install when a setup needs it: %s', async (args, pkg) => {
    const r = await runCommand(bin, args, { cwd: app, env });
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^sluice: .* needs the package "${pkg}": install it \\(npm install ${pkg}\\)$`),
      ),
    ]);
    expect(r.code).toBe(EXIT_CODES.config);
  });
});
