import { describe, expect, test } from 'vitest';
import { spawnNode } from './spawn-node.js';

const entry = new URL('./testing/child-entry.ts', import.meta.url);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('spawnNode', () => {
  test('waits for the ready line; pid is the Node process itself; kill is SIGKILL', async () => {
    const child = await spawnNode(entry, {
      env: { GREETING: 'hi', READY_DELAY_MS: '100' },
      readyLine: /ready pid=(\d+) greeting=(\w+)/,
    });
    const match = await child.waitForLine(/ready pid=(\d+)/);
    expect(Number(match[1])).toBe(child.pid);
    expect(child.output()).toContain('greeting=hi');
    await child.waitForLine(/tick/, 5_000);
    expect(await child.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(alive(child.pid)).toBe(false);
  });

  test('stop() sends SIGTERM and lets the child drain', async () => {
    await using child = await spawnNode(entry, { readyLine: /ready/ });
    expect(await child.stop()).toEqual({ code: 0, signal: null });
    expect(child.output()).toContain('draining');
  });

  test('stop() falls back to SIGKILL when SIGTERM is ignored', async () => {
    await using child = await spawnNode(entry, {
      env: { IGNORE_SIGTERM: '1' },
      readyLine: /ready/,
    });
    expect(await child.stop(500)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(child.output()).toContain('ignoring SIGTERM');
  });

  test('signal() reaches the real process (SIGSTOP pauses output, SIGCONT resumes)', async () => {
    await using child = await spawnNode(entry, { readyLine: /ready/ });
    child.signal('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 150));
    const frozen = child.output().length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(child.output().length).toBe(frozen);
    child.signal('SIGCONT');
    await expect.poll(() => child.output().length, { timeout: 5_000 }).toBeGreaterThan(frozen);
  });

  test('readiness fails with the output when the child exits first', async () => {
    await expect(spawnNode(entry, { args: ['crash'], readyLine: /ready/ })).rejects.toThrow(
      /code 3[\s\S]*about to crash/,
    );
  });

  test('dispose kills the child', async () => {
    let pid: number;
    {
      await using child = await spawnNode(entry, { readyLine: /ready/ });
      pid = child.pid;
    }
    expect(alive(pid)).toBe(false);
  });
});
