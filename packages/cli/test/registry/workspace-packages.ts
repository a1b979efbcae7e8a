// The repository's publishable packages, found rather than listed (a new workspace package is
// published by the tests as soon as it exists and is not private), and their build.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface WorkspacePackage {
  name: string;
  version: string;
  dir: string;
  manifest: {
    private?: boolean;
    files?: string[];
    exports?: Record<string, unknown>;
    publishConfig?: { access?: string };
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    scripts?: Record<string, string>;
  };
}

/** Every workspace package (the root's `workspaces`: `dir/*` globs or plain folders). */
export function workspacePackages(root: string): WorkspacePackage[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  const dirs = workspaces.flatMap((w) =>
    w.endsWith('/*')
      ? readdirSync(join(root, w.slice(0, -2)))
          .map((d) => join(root, w.slice(0, -2), d))
          .filter((d) => statSync(d).isDirectory())
      : [join(root, w)],
  );
  return dirs
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(
        readFileSync(join(dir, 'package.json'), 'utf8'),
      ) as WorkspacePackage['manifest'] & { name: string; version: string };
      return { name: manifest.name, version: manifest.version, dir, manifest };
    });
}

export const publishablePackages = (root: string) =>
  workspacePackages(root).filter((p) => !p.manifest.private);

/**
 * Builds the packages' dist (their prepack) with turbo, dependencies first. One build at a time
 * across test files and processes: two builds writing the same dist side by side could hand a
 * half-written file to the other's `npm pack`.
 */
export async function buildPackages(
  root: string,
  names: string[],
  env: Record<string, string | undefined>,
): Promise<void> {
  await withBuildLock(root, () =>
    run(
      join(root, 'node_modules', '.bin', 'turbo'),
      [
        'run',
        'build',
        ...names.map((n) => `--filter=${n}`),
        '--concurrency=2',
        '--output-logs=errors-only',
      ],
      { cwd: root, env: { ...env, TURBO_TELEMETRY_DISABLED: '1' }, maxBuffer: 64 << 20 },
    ),
  );
}

export async function withBuildLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const lock = join(root, 'node_modules', '.cache', 'sluice-build.lock');
  mkdirSync(join(lock, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Held by another build; a lock older than 15 minutes belongs to a process that died.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 15 * 60_000) rmSync(lock, { recursive: true });
      } catch {
        // Released meanwhile.
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
