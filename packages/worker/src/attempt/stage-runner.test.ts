import {
  defineJob,
  formatJobId,
  isNonRetriableError,
  isUnitsFailedError,
  type RuntimeCapabilities,
} from '@sluice/contracts';
import type { AttemptEvent } from '@sluice/storage';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineHandler, type Handler, type UnitResult } from './define-handler.js';
import { runStages } from './stage-runner.js';
import { createStep } from './step.js';

const summarize = defineJob({
  kind: 'demo.summarize',
  versions: { current: 'v1' },
  input: z.object({ text: z.string().min(1) }),
  output: z.object({ summary: z.string(), words: z.number().int() }),
  progress: z.object({ done: z.number(), of: z.number() }),
});

const caps: RuntimeCapabilities = {
  memoizesSteps: false,
  reclaimsAbandoned: true,
  dispatchesInTransaction: true,
  carriesEvents: false,
  pullsDeliveries: true,
  startsOnClaim: true,
  acksWithOutcome: true,
  delaysJobs: true,
  delaysInRun: false,
  prioritizes: true,
  fairAcrossTenants: true,
  limitsStarts: true,
  limitsProviders: true,
  debouncesSubmits: true,
  singletonKeys: true,
  batchesSubmits: true,
  durableWaits: true,
  childJobs: true,
  startsFromPointer: false,
};

const handler = defineHandler(summarize, {
  prepare: (ctx) =>
    ctx.input.text
      .split('.')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((sentence, i) => ({ key: `s${i}`, input: sentence })),
  execute: async (unit) => unit.input.split(/\s+/).length,
  apply: (results) => results.reduce((n, r) => n + r.result, 0),
  finalize: (words, ctx) => {
    expectTypeOf(words).toEqualTypeOf<number>();
    ctx.progress({ done: 1, of: 1 });
    return { summary: ctx.input.text.slice(0, 10), words };
  },
});

function run(h: Handler, input: unknown, signal = new AbortController().signal) {
  const events: AttemptEvent[] = [];
  const promise = runStages({
    handler: h,
    job: {
      id: formatJobId('v1'),
      kind: h.job.kind,
      version: 'v1',
      tenantId: 'acme',
      attempts: 1,
      input,
    },
    signal,
    events: { push: (e) => events.push(e) },
    step: createStep({ capabilities: caps }),
    files: { open: () => Promise.reject(new Error('no files')) },
    unitConcurrency: 2,
  });
  return { promise, events };
}

describe('runStages', () => {
  it('runs prepare → execute → apply → finalize, with unit_done and progress in order', async () => {
    const { promise, events } = run(handler, { text: 'One two three. Four five.' });
    expect(await promise).toEqual({ summary: 'One two th', words: 5 });
    expect(events.map((e) => e.type)).toEqual(['unit_done', 'unit_done', 'progress']);
    expect(
      events
        .filter((e) => e.type === 'unit_done')
        .map((e) => e.unitKey)
        .sort(),
    ).toEqual(['s0', 's1']);
  });

  it('defaults apply to the unit results as they are', async () => {
    const h = defineHandler(summarize, {
      prepare: () => [{ key: 'a', input: 2 }],
      execute: (u) => u.input * 2,
      finalize: (results) => {
        expectTypeOf(results).toEqualTypeOf<readonly UnitResult<number>[]>();
        return { summary: 'x', words: results[0]?.result ?? 0 };
      },
    });
    expect(await run(h, { text: 'x' }).promise).toEqual({ summary: 'x', words: 4 });
  });

  it('treats invalid input, output, progress and duplicate unit keys as non-retriable', async () => {
    await expect(run(handler, { text: '' }).promise).rejects.toSatisfy(isNonRetriableError);
    const badOutput = defineHandler(summarize, {
      prepare: () => [],
      execute: () => 0,
      // @ts-expect-error words must be a number
      finalize: () => ({ summary: 'x', words: 'many' }),
    });
    await expect(run(badOutput, { text: 'x' }).promise).rejects.toThrow(/output schema/);
    const badProgress = defineHandler(summarize, {
      prepare: (ctx) => {
        // @ts-expect-error progress needs { done, of }
        ctx.progress({ percent: 5 });
        return [];
      },
      execute: () => 0,
      finalize: () => ({ summary: 'x', words: 0 }),
    });
    await expect(run(badProgress, { text: 'x' }).promise).rejects.toThrow(/progress schema/);
    const dupes = defineHandler(summarize, {
      prepare: () => [
        { key: 'a', input: 1 },
        { key: 'a', input: 2 },
      ],
      execute: () => 0,
      finalize: () => ({ summary: 'x', words: 0 }),
    });
    await expect(run(dupes, { text: 'x' }).promise).rejects.toThrow(/duplicate unit key "a"/);
  });

  it('schemas with async refinements still parse input and output (and refuse what they refuse)', async () => {
    const checked = defineJob({
      kind: 'demo.checked',
      versions: { current: 'v1' },
      input: z.object({ n: z.number() }).refine(async (v) => v.n > 0, 'n must be positive'),
      output: z
        .object({ doubled: z.number() })
        .refine(async (v) => v.doubled % 2 === 0, 'doubled must be even'),
    });
    const double = defineHandler(checked, {
      prepare: () => [],
      execute: () => 0,
      finalize: (_r, ctx) => ({ doubled: ctx.input.n * 2 }),
    });
    await expect(run(double, { n: 2 }).promise).resolves.toEqual({ doubled: 4 });
    await expect(run(double, { n: -1 }).promise).rejects.toThrow(/n must be positive/);
    const odd = defineHandler(checked, {
      prepare: () => [],
      execute: () => 0,
      finalize: () => ({ doubled: 3 }),
    });
    await expect(run(odd, { n: 1 }).promise).rejects.toSatisfy(isNonRetriableError);
  });

  it('fails the stage with every unit cause', async () => {
    const h = defineHandler(summarize, {
      prepare: () => ['a', 'b', 'c'].map((key) => ({ key, input: key })),
      execute: (u) => {
        if (u.input !== 'b') throw new Error(`unit ${u.input} broke`);
        return 1;
      },
      finalize: () => ({ summary: 'x', words: 0 }),
    });
    const error = await run(h, { text: 'x' }).promise.catch((e: unknown) => e);
    expect(isUnitsFailedError(error)).toBe(true);
    if (isUnitsFailedError(error)) expect(error.causes.map((c) => c.unitKey)).toEqual(['a', 'c']);
  });

  it('runs each unit through step("unit:<key>")', async () => {
    const names: string[] = [];
    const h = defineHandler(summarize, {
      prepare: () => [{ key: 'k1', input: 1 }],
      execute: (u) => u.input,
      finalize: () => ({ summary: 'x', words: 0 }),
    });
    const memo = createStep({
      capabilities: { ...caps, memoizesSteps: true },
      platformStep: async (name, fn) => {
        names.push(name);
        return fn();
      },
    });
    await runStages({
      handler: h,
      job: {
        id: formatJobId('v1'),
        kind: 'demo.summarize',
        version: 'v1',
        tenantId: 'a',
        attempts: 1,
        input: { text: 'x' },
      },
      signal: new AbortController().signal,
      events: { push() {} },
      step: memo,
      files: { open: () => Promise.reject(new Error('none')) },
    });
    expect(names).toEqual(['unit:k1']);
  });

  it('stops at the next stage boundary once aborted', async () => {
    const controller = new AbortController();
    let finalized = false;
    const h = defineHandler(summarize, {
      prepare: () => {
        controller.abort(new Error('cancel'));
        return [{ key: 'a', input: 1 }];
      },
      execute: () => 1,
      finalize: () => {
        finalized = true;
        return { summary: 'x', words: 0 };
      },
    });
    await expect(run(h, { text: 'x' }, controller.signal).promise).rejects.toThrow('cancel');
    expect(finalized).toBe(false);
  });
});

describe('createStep', () => {
  it('refuses a step name used twice in one attempt', async () => {
    const step = createStep({ capabilities: caps });
    expect(await step('a', async () => 1)).toBe(1);
    await expect(step('a', async () => 2)).rejects.toThrow(/ran twice/);
  });

  it('needs the platform step when the runtime memoizes', () => {
    expect(() => createStep({ capabilities: { ...caps, memoizesSteps: true } })).toThrow(
      /step function/,
    );
  });
});
