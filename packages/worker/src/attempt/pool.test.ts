// Catches the Hono `concurrent.ts` bug (a throwing task never frees its slot) and the
// "first error wins" bug (other failures silently dropped).
import { isUnitsFailedError, UnitsFailedError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { testHooks } from '../testing/seeded-bugs.js';

// Under `npm run seeded-bugs` this is the seeded variant; otherwise the real pool.
const runPool = testHooks().runPool;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runPool', () => {
  it('never runs more than `concurrency` tasks at once and keeps result order', async () => {
    let active = 0;
    let peak = 0;
    const tasks = Array.from({ length: 10 }, (_, i) => ({
      key: `u${i}`,
      run: async () => {
        active++;
        peak = Math.max(peak, active);
        await sleep(5 + ((i * 7) % 5));
        active--;
        return i * 2;
      },
    }));
    expect(await runPool(tasks, { concurrency: 3 })).toEqual(tasks.map((_, i) => i * 2));
    expect(peak).toBe(3);
  });

  it('frees the slot of a task that throws, settles every task, and carries every cause', async () => {
    const ran: string[] = [];
    const tasks = Array.from({ length: 6 }, (_, i) => ({
      key: `u${i}`,
      run: async () => {
        ran.push(`u${i}`);
        if (i === 0) throw new Error('first');
        if (i === 4) throw 'fourth';
        await sleep(1);
        return i;
      },
    }));
    const error = await runPool(tasks, { concurrency: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnitsFailedError);
    expect(isUnitsFailedError(error)).toBe(true);
    const causes = (error as UnitsFailedError).causes;
    expect(causes.map((c) => c.unitKey)).toEqual(['u0', 'u4']);
    expect((causes[0]?.error as Error).message).toBe('first');
    expect(causes[1]?.error).toBe('fourth');
    expect(ran).toHaveLength(6);
  });

  it('stops starting tasks once aborted, waits for the started ones, and rejects', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    let finished = 0;
    const tasks = Array.from({ length: 8 }, (_, i) => ({
      key: `u${i}`,
      run: async () => {
        started.push(i);
        if (i === 1) controller.abort(new Error('stop'));
        await sleep(10);
        finished++;
        return i;
      },
    }));
    await expect(runPool(tasks, { concurrency: 2, signal: controller.signal })).rejects.toThrow(
      'stop',
    );
    expect(started).toEqual([0, 1]);
    expect(finished).toBe(2);
  });

  it('resolves [] for no tasks', async () => {
    expect(await runPool([], { concurrency: 4 })).toEqual([]);
  });
});
