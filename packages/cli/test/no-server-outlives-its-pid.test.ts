// Killing the pid a user sees stops the server. The bug this catches: in a checkout `sluice` was
// a wrapper that spawned the real server as its child, so `kill -9` of the visible pid left the
// server running (claiming jobs, /readyz 200) with nobody to stop it; and under `npx sluice dev`
// npm passes SIGTERM to its `sh -c`, which died without passing it on.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startCommand, type RunningCommand } from './run-command.js';

const QUICKSTART = fileURLToPath(new URL('../../../examples/quickstart', import.meta.url));
const BIN = fileURLToPath(new URL('../../../node_modules/.bin/sluice', import.meta.url));

async function freshEnv() {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-pid-'));
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: join(dir, 'sluice.db'),
    SLUICE_BLOBS_DIR: join(dir, 'blobs'),
    PORT: String(await freePort()),
  };
}

async function answers(port: string): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
  } catch {
    return false;
  }
}

let running: RunningCommand | undefined;
// The cleanup net for a failing run: the whole process group.
afterEach(() => running?.kill());

describe('no server outlives the pid a user sees', () => {
  it.each([
    ['sluice gateway (the checkout bin), SIGKILL', BIN, ['gateway'], 'SIGKILL'],
    ['npx sluice dev, SIGTERM', 'npx', ['sluice', 'dev'], 'SIGTERM'],
    ['npx sluice dev, SIGKILL', 'npx', ['sluice', 'dev'], 'SIGKILL'],
  ] as const)('%s: the port stops answering within seconds', async (_name, cmd, args, signal) => {
    const env = await freshEnv();
    running = startCommand(cmd, [...args], { cwd: QUICKSTART, env });
    await running.waitForLine(/gateway listening on /, 90_000);
    expect(await answers(env.PORT)).toBe(true);
    // The visible pid only, as `kill` or a process manager would: not its process group.
    process.kill(running.child.pid as number, signal);
    const killedAt = Date.now();
    await waitFor(async () => !(await answers(env.PORT)), { timeoutMs: 10_000, intervalMs: 100 });
    expect(Date.now() - killedAt).toBeLessThan(10_000);
  });
});
