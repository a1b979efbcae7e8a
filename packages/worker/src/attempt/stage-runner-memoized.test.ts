// On a runtime that memoizes steps, a replay runs `run()` from the top: the stages themselves
// must be steps (prepare, apply, finalize by their STAGE_STEPS names, units as `unit:<key>`), and a
// unit's `unit_done` event must belong to its step, or a replay would run prepare/finalize again
// and queue every `unit_done` twice. A platform step is simulated here by a memo table that
// survives the "crash" (a real engine's memoized step runs in its runtime package's own suite).
// The runner reads the flag alone, so the memoizing set here differs from the embedded one by
// `memoizesSteps` only.
import {
  defineJob,
  EMBEDDED_CAPABILITIES,
  formatJobId,
  type RuntimeCapabilities,
} from '@sluice/contracts';
import type { AttemptEvent } from '@sluice/storage';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from './define-handler.js';
import { runStages, STAGE_STEPS } from './stage-runner.js';
import { createStep } from './step.js';

const MEMOIZING: RuntimeCapabilities = { ...EMBEDDED_CAPABILITIES, memoizesSteps: true };

const job = defineJob({
  kind: 'demo.count',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ total: z.number() }),
  progress: z.object({ unit: z.string() }),
});

function harness() {
  const ran: string[] = [];
  let crashAfter: string | undefined;
  const handler = defineHandler(job, {
    prepare: (ctx) => {
      ran.push('prepare');
      return Array.from({ length: ctx.input.n }, (_, i) => ({ key: `u${i}`, input: i }));
    },
    execute: async (unit, ctx) => {
      ran.push(unit.key);
      ctx.progress({ unit: unit.key });
      if (crashAfter === unit.key) throw new Error('crash');
      return unit.input;
    },
    apply: (results) => {
      ran.push('apply');
      return results.reduce((s, r) => s + r.result, 0);
    },
    finalize: (total) => {
      ran.push('finalize');
      return { total };
    },
  });
  /** The platform's memo: a finished step's result, kept across replays. */
  const memo = new Map<string, unknown>();
  const replay = async (capabilities: RuntimeCapabilities) => {
    const events: AttemptEvent[] = [];
    const platformStep = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      if (memo.has(name)) return memo.get(name) as T;
      const value = await fn();
      memo.set(name, value);
      return value;
    };
    const output = await runStages({
      handler,
      job: {
        id: formatJobId('v1'),
        kind: job.kind,
        version: 'v1',
        tenantId: 'acme',
        attempts: 1,
        input: { n: 3 },
      },
      signal: new AbortController().signal,
      events: { push: (e) => events.push(e) },
      step: createStep({ capabilities, platformStep }),
      capabilities,
      unitConcurrency: 1,
      files: { open: () => Promise.reject(new Error('no files')) },
    });
    return { output, events };
  };
  return { ran, memo, replay, crashAt: (k: string | undefined) => (crashAfter = k) };
}

describe('stage runner on a runtime that memoizes steps', () => {
  it('a replay after a crash runs no finished stage or unit again, and queues no event twice', async () => {
    const h = harness();
    h.crashAt('u2');
    await expect(h.replay(MEMOIZING)).rejects.toThrow();
    expect(h.ran).toEqual(['prepare', 'u0', 'u1', 'u2']);
    expect([...h.memo.keys()]).toEqual([STAGE_STEPS.prepare, 'unit:u0', 'unit:u1']);
    h.ran.length = 0;
    h.crashAt(undefined);
    const { output, events } = await h.replay(MEMOIZING);
    expect(output).toEqual({ total: 3 });
    // prepare, u0 and u1 came from the memo: only the unfinished work ran
    expect(h.ran).toEqual(['u2', 'apply', 'finalize']);
    expect(events.filter((e) => e.type === 'unit_done').map((e) => e.unitKey)).toEqual(['u2']);
    expect([...h.memo.keys()]).toContain(STAGE_STEPS.finalize);
  });

  it('without the flag the stages are not steps (their results are not checkpointed)', async () => {
    const h = harness();
    const { events } = await h.replay(EMBEDDED_CAPABILITIES);
    expect([...h.memo.keys()]).toEqual([]); // the memo is never asked: no platform step
    expect(events.filter((e) => e.type === 'unit_done')).toHaveLength(3);
  });
});
