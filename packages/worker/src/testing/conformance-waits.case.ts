// Durable waits and child jobs, the same cases on every runtime that declares `durableWaits`
// (registered by `runtimeConformance`). Each case says the bug it catches. The gateway's part
// (signals, the due sweep, children due now) is played by waits-kit.ts with the same storage
// calls and the harness's own dispatch half, so a runtime passes only if its redispatch of a
// resumed job works.

import { defineJob } from '@sluice/contracts';
import { waitFor } from '@sluice/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import {
  events,
  jobRows,
  sleep,
  startTestWorker,
  submitJobs,
  testJob,
  type ConformanceHarness,
} from './conformance-kit.js';
import { completeTokenAsGateway, signalJob, startPump } from './waits-kit.js';

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
    // Catches a timeout nobody fires (the job waits forever) and a sleep that ends early. Each
    // wait is long enough (1 s) that it is still ahead when its suspend is written on a loaded
    // machine: a wait already due by then settles in place and never suspends (at 150 ms a
    // loaded full run saw no `sleep` suspend).
    if (!capable()) return t.skip();
    const job = waitingJob('conf.wait.timeout');
    const handler = defineHandler(job, {
      prepare: async (ctx) => {
        const started = Date.now();
        await ctx.sleep(1_000);
        const r = await ctx.waitForEvent('go', { timeoutMs: ctx.input.timeoutMs ?? 1_000 });
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
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_000);
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

  it('waits: a token the handler made completes its wait once; the replay gets no token back', async (t) => {
    // Catches a token stored in clear (a replay could hand it out again) and a completion that
    // does not reach the wait.
    if (!capable()) return t.skip();
    const job = waitingJob('conf.wait.token');
    const seen: (string | null)[] = [];
    const handler = defineHandler(job, {
      prepare: async (ctx) => {
        const t = await ctx.createToken({ event: 'go', expiresIn: '1h' });
        seen.push(t.token);
        return [{ key: 'u', input: (await ctx.waitForEvent('go')).v }];
      },
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -1, prepares: seen.length }),
    });
    await runWorker(h(), { [job.kind]: { v1: handler } }, { workerId: 'w-token' });
    const [id] = await submitJobs(h(), job, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'waiting', {
      timeoutMs: 15_000,
    });
    const token = seen[0];
    if (!token) throw new Error('no token');
    expect(await completeTokenAsGateway(h(), token, { v: 5 })).toBe('completed');
    expect(await completeTokenAsGateway(h(), token, { v: 6 })).toBe('refused');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect((await jobRows(h(), [id]))[0]?.output).toEqual({ n: 5, prepares: 2 });
    expect(seen[1]).toBeNull();
  });

  it('waits: a worker that stops while its job waits loses nothing; another worker resumes it', async (t) => {
    // Catches a waiting job tied to the worker that suspended it (a lease, a pending entry).
    if (!capable()) return t.skip();
    const job = waitingJob('conf.wait.restart');
    const handler = defineHandler(job, {
      prepare: async (ctx) => [{ key: 'u', input: (await ctx.waitForEvent('go')).v }],
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -1, prepares: 0 }),
    });
    const first = startTestWorker(
      h(),
      { [job.kind]: { v1: handler } },
      { workerId: 'w-gone' },
      cleanup,
    );
    await first.start();
    const [id] = await submitJobs(h(), job, [{ n: 0 }]);
    if (!id) throw new Error('no id');
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'waiting', {
      timeoutMs: 15_000,
    });
    await first.stop({ deadlineMs: 0 });
    expect(await signalJob(h(), id, 'go', { v: 9 })).toMatchObject({ delivered: true });
    await runWorker(h(), { [job.kind]: { v1: handler } }, { workerId: 'w-next' });
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect((await jobRows(h(), [id]))[0]?.output).toEqual({ n: 9, prepares: 0 });
  });
}
