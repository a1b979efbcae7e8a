// Starts `wrangler dev` on a free port with its own local state (D1, R2, Workflows, queue) in a
// temporary directory: migrations applied the way `npm run migrate` does, then the Worker
// served on 127.0.0.1. Wrangler bundles the workspace packages from their sources through the
// `@sluice/source` export condition (WRANGLER_BUILD_CONDITIONS), so no build step is needed.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, waitFor } from '@sluice/testkit';

const run = promisify(execFile);
export const EXAMPLE_DIR = fileURLToPath(new URL('..', import.meta.url));
export const BUILD_CONDITIONS = '@sluice/source,workerd,worker,browser';

export interface WranglerDev {
  url: string;
  persistTo: string;
  /** Runs `wrangler d1 execute DB` against this instance's local D1. */
  d1(statement: string): Promise<Record<string, unknown>[]>;
  /** SIGKILLs the whole process tree (wrangler and workerd) as a crash would; the state stays. */
  kill(): Promise<void>;
  /** Stops it and removes its state. */
  stop(): Promise<void>;
}

function wrangler(args: readonly string[], config: string, persistTo: string) {
  return run('npx', ['wrangler', ...args, '--config', config, '--persist-to', persistTo], {
    cwd: EXAMPLE_DIR,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
}

export interface WranglerDevOptions {
  /** Apply the D1 migrations first (default true; a Worker with no D1 binding has none). */
  migrate?: boolean | undefined;
  /** `--var NAME:VALUE` for each entry. */
  vars?: Readonly<Record<string, string>> | undefined;
  /**
   * Serve the local state of an earlier instance (one that was killed): no migrations, and the
   * directory is the caller's to remove.
   */
  persistTo?: string | undefined;
}

export async function startWranglerDev(
  config = 'wrangler.jsonc',
  opts: WranglerDevOptions = {},
): Promise<WranglerDev> {
  const persistTo = opts.persistTo ?? mkdtempSync(join(tmpdir(), 'sluice-wrangler-'));
  if (opts.migrate !== false && opts.persistTo === undefined) {
    await wrangler(['d1', 'migrations', 'apply', 'DB', '--local'], config, persistTo);
  }
  const port = await freePort();
  const child: ChildProcess = spawn(
    'npx',
    [
      'wrangler',
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--config',
      config,
      '--persist-to',
      persistTo,
      '--inspector-port',
      String(await freePort()),
      '--show-interactive-dev-session=false',
      ...Object.entries(opts.vars ?? {}).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
    ],
    {
      cwd: EXAMPLE_DIR,
      env: {
        ...process.env,
        WRANGLER_BUILD_CONDITIONS: BUILD_CONDITIONS,
        WRANGLER_SEND_METRICS: 'false',
        CI: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  if (process.env.WRANGLER_ECHO) child.stdout?.on('data', (d: Buffer) => process.stderr.write(d));
  const url = `http://127.0.0.1:${port}`;
  const exited = () =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      const gone = exited();
      process.kill(-child.pid, 'SIGKILL');
      await gone;
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      const gone = exited();
      process.kill(-child.pid, 'SIGTERM');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      await kill();
    }
    if (opts.persistTo === undefined) rmSync(persistTo, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${output}`);
        return (await fetch(`${url}/healthz`)).ok;
      },
      { timeoutMs: 90_000, intervalMs: 250, message: 'wrangler dev did not answer /healthz' },
    );
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}\n${output.slice(-4000)}`, { cause: error });
  }
  return {
    url,
    persistTo,
    async d1(statement) {
      const { stdout } = await wrangler(
        ['d1', 'execute', 'DB', '--local', '--json', '--command', statement],
        config,
        persistTo,
      );
      const parsed = JSON.parse(stdout) as { results: Record<string, unknown>[] }[];
      return parsed[0]?.results ?? [];
    },
    kill,
    stop,
  };
}
