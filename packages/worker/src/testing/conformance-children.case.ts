// Child jobs on every runtime that declares `childJobs` (registered by `runtimeConformance`):
// fan-out and fan-in with typed results and failures, exactly one child per key whatever the
// parent's runs, no provider call repeated by a parent's resume or retry (the ledger), and a
// child that crashes. The gateway's part is played by waits-kit.ts (its pump).

import { defineJob, NonRetriableError } from '@sluice/contracts';
import { callsForJob } from '@sluice/storage';
import { FAKE_PROVIDER_PATHS, waitFor } from '@sluice/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import { startFakeProvider } from '../user-testing/fake-provider.js';
import {
  jobRows,
  sleep,
  startTestWorker,
  submitJobs,
  testJob,
  type ConformanceHarness,
} from './conformance-kit.js';
import { startPump } from './waits-kit.js';

const cleanup = (fn: () => Promise<void>) => onTestFinished(fn);

async function runWorker(
  h: ConformanceHarness,
  handlers: Parameters<typeof startTestWorker>[1],
  opts: Parameters<typeof startTestWorker>[2],
): Promise<void> {
  await startTestWorker(h, handlers, opts, cleanup).start();
}

function parentJob(kind: string) {
  return defineJob({
    kind,
    versions: { current: 'v1' },
    input: z.object({ n: z.number().int() }),
    output: z.object({ n: z.number().int(), prepares: z.number().int() }),
  });
}

export function registerChildCases(h: () => ConformanceHarness): void {
  it('children: a parent fans out, waits for all, and reads each typed result or typed failure', async (t) => {
    // Catches a child failure that fails the parent instead of reaching it as a value, and
    // children whose results come back in another order.
    if (!h().capabilities.childJobs) return t.skip();
    const child = defineJob({
      kind: 'conf.child',
      versions: { current: 'v1' },
      input: z.object({ n: z.number().int(), fail: z.boolean().default(false) }),
      output: z.object({ sq: z.number().int() }),
    });
    const parent = parentJob('conf.parent');
    const childHandler = defineHandler(child, {
      prepare: (ctx) => [{ key: 'c', input: ctx.input.n }],
      execute: (unit, ctx) => {
        if (ctx.input.fail) throw new NonRetriableError('child refused');
        return unit.input * unit.input;
      },
      finalize: (results) => ({ sq: results[0]?.result ?? 0 }),
    });
    const parentHandler = defineHandler(parent, {
      prepare: async (ctx) => {
        const handles = [];
        for (const n of [2, 3, 4])
          handles.push(await ctx.children.start(child, { n, fail: n === 3 }, { key: `c${n}` }));
        const results = await ctx.children.wait(handles);
        return results.map((r, i) => ({
          key: `r${i}`,
          input: r.ok
            ? r.output.sq
            : r.state === 'failed' && JSON.stringify(r.error).includes('child refused')
              ? -1
              : -2,
        }));
      },
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results.reduce((s, r) => s + r.result, 0), prepares: 0 }),
    });
    const pump = startPump(h());
    cleanup(() => pump.stop());
    await runWorker(
      h(),
      { [child.kind]: { v1: childHandler }, [parent.kind]: { v1: parentHandler } },
      { workerId: 'w-children' },
    );
    const [id] = await submitJobs(h(), parent, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 20_000,
    });
    expect((await jobRows(h(), [id]))[0]?.output).toEqual({ n: 4 - 1 + 16, prepares: 0 });
    const kids = await h()
      .database.db.selectFrom('jobs')
      .select(['id', 'state'])
      .where('parent_id', '=', id)
      .execute();
    expect(kids.map((k) => k.state).sort()).toEqual(['failed', 'succeeded', 'succeeded']);
  });

  it("children: a crash between a child's start and the parent's checkpoint starts the child exactly once", async (t) => {
    // Catches a child keyed by something a retry changes (the attempt): the retry would start a
    // second child and pay for its work twice.
    if (!h().capabilities.childJobs) return t.skip();
    const child = testJob('conf.once.child');
    const parent = parentJob('conf.once.parent');
    let attempts = 0;
    const childHandler = defineHandler(child, {
      prepare: (ctx) => [{ key: 'c', input: ctx.input.n }],
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? 0 }),
    });
    const parentHandler = defineHandler(parent, {
      prepare: async (ctx) => {
        const handle = await ctx.children.start(child, { n: 5 }, { key: 'only' });
        // The attempt dies right after the start: nothing after it is stored.
        if (++attempts === 1) throw new Error('crash after the child started');
        const [r] = await ctx.children.wait([handle]);
        return [{ key: 'u', input: r?.ok ? r.output.n : -1 }];
      },
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -1, prepares: attempts }),
    });
    const pump = startPump(h());
    cleanup(() => pump.stop());
    await runWorker(
      h(),
      { [child.kind]: { v1: childHandler }, [parent.kind]: { v1: parentHandler } },
      { workerId: 'w-once' },
    );
    const [id] = await submitJobs(h(), parent, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 20_000,
    });
    expect((await jobRows(h(), [id]))[0]?.output).toMatchObject({ n: 5 });
    const kids = await h()
      .database.db.selectFrom('jobs')
      .select('id')
      .where('parent_id', '=', id)
      .execute();
    expect(kids).toHaveLength(1);
  });

  it('children: a parent retried while waiting on children repeats no provider call (ledger)', async (t) => {
    // Catches a resume or retry that runs a paid unit again: the provider bills twice.
    if (!h().capabilities.childJobs) return t.skip();
    await using provider = await startFakeProvider();
    const child = testJob('conf.paid.child');
    const parent = defineJob({
      kind: 'conf.paid.parent',
      versions: { current: 'v1' },
      input: z.object({ n: z.number().int() }),
      output: z.object({ n: z.number().int() }),
      providers: {
        render: { provider: 'fake', modality: 'video', call: 'sync', idempotencyKey: 'none' },
      },
    });
    let applies = 0;
    const childHandler = defineHandler(child, {
      prepare: (ctx) => [{ key: 'c', input: ctx.input.n }],
      execute: async (unit) => {
        await sleep(100);
        return unit.input;
      },
      finalize: (results) => ({ n: results[0]?.result ?? 0 }),
    });
    const parentHandler = defineHandler(parent, {
      prepare: () => [{ key: 'script', input: 1 }],
      execute: async (unit, ctx) => {
        await ctx.providers.call('render', {
          method: 'POST',
          url: `${provider.url}${FAKE_PROVIDER_PATHS.sync}`,
          body: { prompt: 'script' },
        });
        return unit.input;
      },
      apply: async (results, ctx) => {
        const kid = await ctx.children.start(child, { n: 9 }, { key: 'render' });
        const [r] = await ctx.children.wait([kid]);
        // The first run after the resume fails: the parent is retried with its children done.
        if (++applies === 1) throw new Error('retry me');
        return (results[0]?.result ?? 0) + (r?.ok ? r.output.n : 0);
      },
      finalize: (n) => ({ n }),
    });
    const pump = startPump(h());
    cleanup(() => pump.stop());
    await runWorker(
      h(),
      { [child.kind]: { v1: childHandler }, [parent.kind]: { v1: parentHandler } },
      { workerId: 'w-paid' },
    );
    const [id] = await submitJobs(h(), parent, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 20_000,
    });
    expect((await jobRows(h(), [id]))[0]?.output).toEqual({ n: 10 });
    expect(provider.billed()).toBe(1);
    expect(await callsForJob(h().database.db, id)).toHaveLength(1);
  });

  it('children: a child that crashes is retried on its own and its parent resumes with its result', async (t) => {
    // Catches a parent resumed by a child's failed attempt (not its end), or stranded by it.
    if (!h().capabilities.childJobs) return t.skip();
    const child = testJob('conf.crash.child');
    const parent = parentJob('conf.crash.parent');
    let childRuns = 0;
    const childHandler = defineHandler(child, {
      prepare: (ctx) => [{ key: 'c', input: ctx.input.n }],
      execute: (unit) => {
        // The first attempt dies mid-unit: a plain error, retried with backoff.
        if (++childRuns === 1) throw new Error('worker died mid-unit');
        return unit.input * 2;
      },
      finalize: (results) => ({ n: results[0]?.result ?? 0 }),
    });
    const parentHandler = defineHandler(parent, {
      prepare: async (ctx) => {
        const kid = await ctx.children.start(child, { n: 21 }, { key: 'k' });
        const [r] = await ctx.children.wait([kid]);
        return [{ key: 'u', input: r?.ok ? r.output.n : -1 }];
      },
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -1, prepares: 0 }),
    });
    const pump = startPump(h());
    cleanup(() => pump.stop());
    await runWorker(
      h(),
      { [child.kind]: { v1: childHandler }, [parent.kind]: { v1: parentHandler } },
      { workerId: 'w-child-crash' },
    );
    const [id] = await submitJobs(h(), parent, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 20_000,
    });
    expect((await jobRows(h(), [id]))[0]?.output).toEqual({ n: 42, prepares: 0 });
    expect(childRuns).toBe(2);
  });
}
