// A command loads what it runs: `--version`, `--help`, a usage error and the client commands load
// no gateway, worker, storage or driver code (the CLI test suites spawn the command hundreds of
// times, and a user waits for it), `migrate` loads storage but neither the gateway nor the worker.
// Each run logs every module URL it loads through a `--import` hook.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCommand } from './run-command.js';

const QUICKSTART = fileURLToPath(new URL('../../../examples/quickstart', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/sluice.js', import.meta.url));
const HOOK = fileURLToPath(new URL('./fixtures/log-loads.mjs', import.meta.url));

/** The modules `sluice <args>` loaded (run in examples/quickstart), as URLs. */
async function loadsOf(args: string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-loads-'));
  const log = join(dir, 'loads.txt');
  const result = await runCommand(process.execPath, ['--import', HOOK, BIN, ...args], {
    cwd: QUICKSTART,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SLUICE_TEST_LOAD_LOG: log,
      DATABASE_URL: join(dir, 'sluice.db'),
    },
  });
  expect(result.code, result.stderr).not.toBeNull();
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  // The hook saw the command's own modules (not only its own start-up).
  expect(urls.some((u) => u.includes('/packages/cli/src/program.ts'))).toBe(true);
  return urls;
}

const GATEWAY = /\/packages\/gateway\/|\/node_modules\/(hono|@hono|@trpc|ws)\//;
// The worker's entry and its Node host; a config's handlers may import its runtime-neutral core.
const WORKER = /\/packages\/worker\/src\/(index|node|create-worker|runtimes\/)/;
const RUNTIME_HALVES = /\/packages\/runtime-[a-z-]+\/src\/(gateway|worker)\//;
const DRIVERS = /\/node_modules\/(kysely|better-sqlite3|pg|iovalkey|@nats-io)\//;
// Storage's light subpaths (a database URL's form, an optional driver's check) are allowed.
const STORAGE = /\/packages\/storage\/src\/(?!database-url\.ts|require-optional\.ts)/;

const matching = (urls: string[], re: RegExp) => urls.filter((u) => re.test(u));

describe('a command loads what it runs', () => {
  it.each([
    ['--version', ['--version']],
    ['--help', ['--help']],
    ['a usage error', ['jobs', 'nope']],
    ['jobs list', ['jobs', 'list', '--url', 'http://127.0.0.1:1']],
  ])('%s loads no gateway, worker, runtime half, storage or driver', async (_name, args) => {
    const urls = await loadsOf(args);
    expect(matching(urls, GATEWAY)).toEqual([]);
    expect(matching(urls, WORKER)).toEqual([]);
    expect(matching(urls, RUNTIME_HALVES)).toEqual([]);
    expect(matching(urls, STORAGE)).toEqual([]);
    expect(matching(urls, DRIVERS)).toEqual([]);
  });

  it('migrate loads storage and kysely, not the gateway, the worker or a runtime half', async () => {
    const urls = await loadsOf(['migrate']);
    expect(matching(urls, /\/packages\/storage\/src\/migrations\.ts/).length).toBeGreaterThan(0);
    expect(matching(urls, /\/node_modules\/kysely\//).length).toBeGreaterThan(0);
    expect(matching(urls, GATEWAY)).toEqual([]);
    expect(matching(urls, WORKER)).toEqual([]);
    expect(matching(urls, RUNTIME_HALVES)).toEqual([]);
    // From source the config's imports are the CLI's own modules, not a second copy of each.
    expect(urls.filter((u) => u.includes('tsx-namespace'))).toEqual([]);
    expect(urls.length).toBe(new Set(urls).size);
  });
});
