// `npx sluice …` from source in examples/quickstart, whose sluice.config.ts imports @sluice/cli:
// `main` must run exactly once. The bug this catches: main.ts ran itself when it looked like the
// entry file, and tsx loads the config's `@sluice/cli` import as a second module instance that
// looked like it too, so every command ran twice (two keys created; the second gateway died
// with EADDRINUSE).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand, startCommand, type RunningCommand } from './run-command.js';

const QUICKSTART = fileURLToPath(new URL('../../../examples/quickstart', import.meta.url));

function freshEnv() {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-once-'));
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: join(dir, 'sluice.db'),
    SLUICE_BLOBS_DIR: join(dir, 'blobs'),
  };
}

const count = (text: string, re: RegExp) => text.match(new RegExp(re, 'g'))?.length ?? 0;

let running: RunningCommand | undefined;
afterEach(() => running?.kill());

describe('npx sluice from source runs main exactly once', () => {
  it('keys create makes one key', async () => {
    const env = freshEnv();
    const created = await runCommand('npx', ['sluice', 'keys', 'create', '--tenant', 'once'], {
      cwd: QUICKSTART,
      env,
    });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(count(created.stdout, /created key /)).toBe(1);
    const listed = await runCommand('npx', ['sluice', 'keys', 'list'], { cwd: QUICKSTART, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it.each([
    ['gateway', /gateway listening on /],
    ['dev', /dev API key/],
  ])('%s starts once, serves, and drains on Ctrl-C', async (command, ready) => {
    const env = { ...freshEnv(), PORT: String(await freePort()) };
    running = startCommand('npx', ['sluice', command], { cwd: QUICKSTART, env });
    await running.waitForLine(ready, 60_000);
    const health = await fetch(`http://127.0.0.1:${env.PORT}/healthz`);
    expect(health.status).toBe(200);
    // npm exec does not pass SIGTERM on to its child; Ctrl-C reaches every process of the group.
    await running.interrupt();
    const output = running.output();
    expect(count(output, new RegExp(`sluice ${command}: runtime`))).toBe(1);
    expect(count(output, /gateway listening on /)).toBe(1);
    expect(output).not.toMatch(/EADDRINUSE|already in use/);
    // Drained to the end (npm exec's own exit status for an interrupt is its business: it is
    // killed by the SIGINT, whatever the command's exit).
    expect(output).toMatch(new RegExp(`draining…\\nsluice ${command}: stopped\\n`));
  });
});
