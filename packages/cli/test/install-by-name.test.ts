// Install by name, as the README says, from a registry: every publishable workspace package
// (found, not listed) is built and published to a private Verdaccio started here, then an empty
// folder runs exactly the README's Install commands (only the @sluice scope points at that
// registry), writes the README's first job, type-checks it with `skipLibCheck: false`, and runs
// it as the README does: a key, the gateway and the worker as separate processes, and the typed
// client to its typed result. Catches an install line that names a missing package, a package
// that was never published, a dependency on an unpublished version, a declaration that needs an
// optional peer the app did not install (TS2307), and a README whose first job does not run.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './deploy/load.js';
import { startLocalRegistry, type LocalRegistry } from './registry/local-registry.js';
import { readReadmeApp } from './registry/readme.js';
import { buildPackages, publishablePackages } from './registry/workspace-packages.js';
import { runCommand, startCommand, type RunningCommand } from './run-command.js';

const run = promisify(execFile);
const packages = publishablePackages(ROOT);
const readme = readReadmeApp(ROOT);

/** Peers an app must install itself; every other peer is optional (peerDependenciesMeta). */
const REQUIRED_PEERS: Record<string, string> = {
  zod: 'the app’s job schemas and Sluice’s must be one copy',
  react: 'the hooks run inside the app’s React',
  '@sluice/client': 'the hooks take the app’s client',
};

// The outer `npm test` puts npm_* settings (prefix, workspace, lifecycle) in the environment;
// the app's npm must not inherit them.
// npm_config_nodedir stays: it points node-gyp at the running Node's headers (scripts/node24.sh).
const env: Record<string, string | undefined> = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !k.toLowerCase().startsWith('npm_') || k.toLowerCase() === 'npm_config_nodedir',
  ),
);
// Config, not command: the README's commands run as written, reusing tarballs npm already cached.
// No install script is needed: better-sqlite3 13 ships N-API binaries for every platform.
const installEnv = {
  ...env,
  npm_config_ignore_scripts: 'true',
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_loglevel: 'error',
};

const timings: Record<string, number> = {};
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    timings[name] = Math.round(performance.now() - t0);
  }
}

const work = mkdtempSync(join(tmpdir(), 'sluice-by-name-'));
const app = join(work, 'app');
let registry: LocalRegistry | undefined;
const running: RunningCommand[] = [];

beforeAll(async () => {
  mkdirSync(app, { recursive: true });
  await timed('build', () =>
    buildPackages(
      ROOT,
      packages.map((p) => p.name),
      env,
    ),
  );
  registry = await timed('registry start', () => startLocalRegistry(join(work, 'registry')));
  const publisherRc = join(work, 'publisher.npmrc');
  writeFileSync(publisherRc, registry.npmrc({ publish: true }));
  await timed('npm publish', () =>
    run('npm', ['publish', '--ignore-scripts', ...packages.flatMap((p) => ['-w', p.name])], {
      cwd: ROOT,
      env: { ...env, npm_config_userconfig: publisherRc },
      maxBuffer: 64 << 20,
    }),
  );
  // The app points the @sluice scope at the local registry, as a team would at its own.
  writeFileSync(join(app, '.npmrc'), registry.npmrc());
  await timed('README install', () =>
    run('bash', ['-euo', 'pipefail', '-c', readme.install.join('\n')], {
      cwd: app,
      env: installEnv,
      maxBuffer: 64 << 20,
    }),
  );
  for (const [file, text] of Object.entries(readme.files)) {
    mkdirSync(dirname(join(app, file)), { recursive: true });
    writeFileSync(join(app, file), text);
  }
}, 900_000);

afterAll(async () => {
  for (const r of running) r.kill();
  await Promise.all(running.map((r) => r.exited));
  await registry?.[Symbol.asyncDispose]();
  console.log(`install-by-name timings (ms): ${JSON.stringify(timings)}`);
  rmSync(work, { recursive: true, force: true });
});

describe('the publishable packages', () => {
  it('are found, and share one version, which their @sluice dependencies name exactly', () => {
    expect(packages.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        '@sluice/cli',
        '@sluice/client',
        '@sluice/contracts',
        '@sluice/worker',
      ]),
    );
    const version = packages[0]?.version;
    for (const p of packages) {
      expect(p.version, p.name).toBe(version);
      const { dependencies = {}, peerDependencies = {} } = p.manifest;
      for (const [dep, range] of Object.entries({ ...dependencies, ...peerDependencies }))
        if (dep.startsWith('@sluice/')) expect(range, `${p.name} → ${dep}`).toBe(version);
    }
  });

  it.each(packages.map((p) => [p.name, p] as const))(
    '%s is publish-ready: dist in files and exports, a README and a LICENSE, public access, optional peers marked',
    (_name, p) => {
      expect(p.manifest.files).toContain('dist');
      expect(p.manifest.scripts?.prepack).toBe('npm run build');
      expect(p.manifest.publishConfig?.access).toBe('public');
      expect(existsSync(join(p.dir, 'README.md'))).toBe(true);
      expect(existsSync(join(p.dir, 'LICENSE'))).toBe(true);
      for (const [subpath, target] of Object.entries(p.manifest.exports ?? {})) {
        const t = target as Record<string, string>;
        // Source-only subpaths (test helpers) serve the workspace; the rest ship from dist.
        if (!t.types) continue;
        expect(t.types, subpath).toMatch(/^\.\/dist\/.*\.d\.ts$/);
        expect(t.import ?? t.default, subpath).toMatch(/^\.\/dist\/.*\.js$/);
      }
      for (const peer of Object.keys(p.manifest.peerDependencies ?? {})) {
        if (peer in REQUIRED_PEERS) continue;
        expect(p.manifest.peerDependenciesMeta?.[peer]?.optional, `${p.name} peer ${peer}`).toBe(
          true,
        );
      }
    },
  );
});

describe("the README's install, by name from a registry, in an empty folder", () => {
  it('took every @sluice package from the local registry, at the published version', async () => {
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; integrity?: string }>;
    };
    const sluice = Object.entries(lock.packages).filter(([path]) =>
      path.startsWith('node_modules/@sluice/'),
    );
    expect(sluice.length).toBeGreaterThanOrEqual(4);
    const published = new Map(packages.map((p) => [p.name, p.version]));
    for (const [path, entry] of sluice) {
      const name = path.slice('node_modules/'.length);
      expect(published.get(name), name).toBe(entry.version);
      // The tarball is the one published here: the lockfile may omit `resolved` (npm's
      // omit-lockfile-registry-resolved), so compare the content hash with this registry's.
      const meta = (await (await fetch(`${registry?.url}${name.replace('/', '%2f')}`)).json()) as {
        versions: Record<string, { dist: { integrity: string } }>;
      };
      expect(entry.integrity, name).toBe(meta.versions[entry.version as string]?.dist.integrity);
    }
  });

  it('installed no optional driver the app did not ask for', () => {
    for (const optional of ['pg', 'iovalkey', '@aws-sdk/client-s3'])
      expect(existsSync(join(app, 'node_modules', optional)), optional).toBe(false);
  });

  it('type-checks the first job against the published declarations with skipLibCheck: false', async () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        include: Object.keys(readme.files),
      }),
    );
    const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = await timed('tsc', () =>
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, env }).then(
        () => '',
        (e: { stdout?: string }) => e.stdout ?? String(e),
      ),
    );
    expect(r).toBe('');
  });

  it('runs the first job: gateway and worker as separate processes, the typed client to its typed result', async () => {
    const [keysLine, gatewayLine, workerLine, clientLine, ...rest] = readme.run;
    expect(rest).toEqual([]);
    expect(keysLine).toMatch(/^npx sluice keys create /);
    expect(gatewayLine).toBe('npx sluice gateway');
    expect(workerLine).toBe('npx sluice worker');
    expect(clientLine).toMatch(/^SLUICE_API_KEY=<the key> npx tsx client\.ts$/);
    const port = await freePort();
    const appEnv = { ...env, PORT: String(port), SLUICE_URL: `http://127.0.0.1:${port}` };
    const sh = (line: string): [string, string[]] => ['bash', ['-c', line]];

    const key = await timed('keys create', () =>
      runCommand(...sh(keysLine as string), { cwd: app, env: appEnv }),
    );
    expect(key.code, key.stderr).toBe(0);
    const apiKey = key.stdout.trim().split('\n').at(-1) as string;
    expect(apiKey).toMatch(/^\S{20,}$/);

    const gateway = startCommand(...sh(gatewayLine as string), { cwd: app, env: appEnv });
    const worker = startCommand(...sh(workerLine as string), { cwd: app, env: appEnv });
    running.push(gateway, worker);
    await timed('gateway and worker up', () =>
      Promise.all([
        gateway.waitForLine(/gateway listening on /, 120_000),
        worker.waitForLine(/sluice worker: runtime embedded/, 120_000),
      ]),
    );
    const client = await timed('client submit → result', () =>
      runCommand(...sh((clientLine as string).replace('<the key>', apiKey)), {
        cwd: app,
        env: appEnv,
        timeoutMs: 120_000,
      }),
    );
    expect(client.stderr).toBe('');
    expect(client.code).toBe(0);
    const lines = client.stdout.trim().split('\n');
    // Every event of the job in order (`<seq> <type>`), then the typed result.
    const events = lines.slice(0, -1).map((l) => l.split(' '));
    expect(events.map(([seq]) => Number(seq))).toEqual(events.map((_, i) => i + 1));
    expect(events.map(([, type]) => type)).toContain('state');
    expect(JSON.parse(lines.at(-1) as string)).toEqual({
      summary: 'Sluice runs jobs. … Retries are safe. … You can watch',
      sentences: 3,
    });
    // Ctrl-C, as a terminal sends it.
    await Promise.all([gateway.interrupt(), worker.interrupt()]);
  });
});
