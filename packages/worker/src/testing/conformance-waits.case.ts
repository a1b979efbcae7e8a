// Durable waits and child jobs, the same cases on every runtime that declares `durableWaits`
// (registered by `runtimeConformance`). Each case says the bug it catches. The gateway's part
// (signals, the due sweep, children due now) is played by waits-kit.ts with the same storage
// calls and the harness's own dispatch half, so a runtime passes only if its redispatch of a
// resumed job works.

import { defineJob, NonRetriableError } from '@sluice/contracts';
import { callsForJob } from '@sluice/storage';
import { FAKE_PROVIDER_PATHS, waitFor } from '@sluice/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import { startFakeProvider } from '../user-testing/fake-provider.js';
import {
  events,
  jobRows,
  sleep,
  startTestWorker,
  submitJobs,
  testJob,
  type ConformanceHarness,
} from './conformance-kit.js';
import { signalJob, startPump } from './waits-kit.js';

const go = z.object({ v: z.number().int() });

function waitingJob(kind: string, maxAttempts = 5) {
  return defineJob({
    kind,
    versions: { current: 'v1' },
    input: z.object({ n: z.number().int(), timeoutMs: z.number().int().optional() }),
    output: z.object({ n: z.number().int(), prepares: z.number().int() }),
    events: { go },
    maxAttempts,
  });
}

const cleanup = (fn: () => Promise<void>) => onTestFinished(fn);

/** A started worker on this runtime (stopped when the test ends). */
async function runWorker(
  h: ConformanceHarness,
  handlers: Parameters<typeof startTestWorker>[1],
  opts: Parameters<typeof startTestWorker>[2],
): Promise<void> {
  await startTestWorker(h, handlers, opts, cleanup).start();
}

export function registerWaitCases(h: () => ConformanceHarness): void {
  const capable = () => h().capabilities.durableWaits;

  it('waits: a signal sent before the wait is kept, and the wait takes it without suspending', async (t) => {
    // Catches a signal dropped because no wait was open when it came (the lost early signal).
    if (!capable()) return t.skip();
    const job = waitingJob('conf.wait.early');
    const handler = defineHandler(job, {
      prepare: async (ctx) => [{ key: 'u', input: (await ctx.waitForEvent('go')).v }],
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -1, prepares: 1 }),
    });
    const [id] = await submitJobs(h(), job, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    expect(await signalJob(h(), id, 'go', { v: 7 })).toMatchObject({ delivered: false });
    await runWorker(h(), { [job.kind]: { v1: handler } }, { workerId: 'w-early' });
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect((await jobRows(h(), [id]))[0]?.output).toEqual({ n: 7, prepares: 1 });
    const states = (await events(h(), id)).flatMap((e) => ('to' in e ? [e.to] : []));
    expect(states).not.toContain('waiting');
  });

  it('waits: a waiting job holds no slot, no lease and no attempt; a signal resumes it and its units run once', async (t) => {
    // Catches a wait that holds an execution slot (the other job never runs), a suspend that
    // spends the attempt budget, and a resume that runs a finished unit again.
    if (!capable()) return t.skip();
    const job = waitingJob('conf.wait.resume');
    const other = testJob('conf.wait.other');
    let prepares = 0;
    let executes = 0;
    const handler = defineHandler(job, {
      prepare: () => {
        prepares++;
        return [{ key: 'u', input: 1 }];
      },
      execute: (unit) => {
        executes++;
        return unit.input;
      },
      apply: async (results, ctx) => (await ctx.waitForEvent('go')).v + (results[0]?.result ?? 0),
      finalize: (sum) => ({ n: sum, prepares }),
    });
    const otherHandler = defineHandler(other, {
      prepare: (ctx) => [{ key: 'o', input: ctx.input.n }],
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -1 }),
    });
    await runWorker(
      h(),
      { [job.kind]: { v1: handler }, [other.kind]: { v1: otherHandler } },
      { workerId: 'w-resume', concurrency: 1 },
    );
    const [id] = await submitJobs(h(), job, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'waiting', {
      timeoutMs: 15_000,
    });
    const waiting = (await jobRows(h(), [id]))[0];
    expect(waiting).toMatchObject({ reason: 'event:go', attempts: 0, leaseUntil: null });
    // One slot: the other job runs only because the waiting one gave it back.
    const [otherId] = await submitJobs(h(), other, [{ n: 3 }]);
    if (!otherId) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [otherId]))[0]?.state === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect(await signalJob(h(), id, 'go', { v: 41 })).toMatchObject({ delivered: true });
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect((await jobRows(h(), [id]))[0]).toMatchObject({ output: { n: 42, prepares: 2 } });
    expect(executes).toBe(1);
  });

  it('waits: a wait with a timeout resumes with the typed timeout result, and a sleep wakes on time', async (t) => {
    // Catches a timeout nobody fires (the job waits forever) and a sleep that ends early.
    if (!capable()) return t.skip();
    const job = waitingJob('conf.wait.timeout');
    const handler = defineHandler(job, {
      prepare: async (ctx) => {
        const started = Date.now();
        await ctx.sleep(150);
        const r = await ctx.waitForEvent('go', { timeoutMs: ctx.input.timeoutMs ?? 150 });
        return [{ key: 'u', input: r.timedOut ? -1 : r.payload.v, started }];
      },
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -2, prepares: 0 }),
    });
    const pump = startPump(h());
    cleanup(() => pump.stop());
    await runWorker(h(), { [job.kind]: { v1: handler } }, { workerId: 'w-timeout' });
    const t0 = Date.now();
    const [id] = await submitJobs(h(), job, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect((await jobRows(h(), [id]))[0]?.output).toEqual({ n: -1, prepares: 0 });
    const reasons = (await events(h(), id)).flatMap((e) =>
      'to' in e && e.to === 'waiting' ? [e.reason] : [],
    );
    expect(reasons).toEqual(['sleep', 'event:go']);
  });

  it('waits: no lost wakeup — signals racing the suspend at random moments never strand a job (3 × 15 jobs)', async (t) => {
    // Catches the classic lost wakeup: a signal committed between the wait's check and the
    // suspend write finds the job running (nothing to resume) and the suspend finds no signal.
    if (!capable()) return t.skip();
    const job = waitingJob('conf.wait.race');
    const handler = defineHandler(job, {
      prepare: async (ctx) => [{ key: 'u', input: (await ctx.waitForEvent('go')).v }],
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -1, prepares: 0 }),
    });
    for (const w of ['w-race-1', 'w-race-2'])
      await runWorker(h(), { [job.kind]: { v1: handler } }, { workerId: w });
    for (let round = 0; round < 3; round++) {
      const ids = await submitJobs(
        h(),
        job,
        Array.from({ length: 15 }, (_, n) => ({ n })),
      );
      await Promise.all(
        ids.map(async (id, i) => {
          await sleep((i * 7) % 40);
          await signalJob(h(), id, 'go', { v: i });
        }),
      );
      await waitFor(async () => (await jobRows(h(), ids)).every((r) => r.state === 'succeeded'), {
        timeoutMs: 20_000,
      });
      const rows = await jobRows(h(), ids);
      expect(rows.map((r) => (r.output as { n: number }).n)).toEqual(ids.map((_, i) => i));
    }
  });

  it('children: a parent fans out, waits for all, and reads each typed result or typed failure', async (t) => {
    // Catches a child failure that fails the parent instead of reaching it as a value, and
    // children whose results come back in another order.
    if (!capable() || !h().capabilities.childJobs) return t.skip();
    const child = defineJob({
      kind: 'conf.child',
      versions: { current: 'v1' },
      input: z.object({ n: z.number().int(), fail: z.boolean().default(false) }),
      output: z.object({ sq: z.number().int() }),
    });
    const parent = waitingJob('conf.parent');
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
    if (!capable() || !h().capabilities.childJobs) return t.skip();
    const child = testJob('conf.once.child');
    const parent = waitingJob('conf.once.parent');
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
    if (!capable() || !h().capabilities.childJobs) return t.skip();
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
}
