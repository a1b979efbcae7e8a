// Lifecycle cases of the runtime conformance suite: cancellation through renewal, drain within
// the deadline, readiness transitions. Registered by `runtimeConformance`.

import { isSluiceError } from '@sluice/contracts';
import { transitionJob } from '@sluice/storage';
import { waitFor } from '@sluice/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { defineHandler } from '../attempt/define-handler.js';
import {
  allTerminal,
  events,
  jobRows,
  sleep,
  startTestWorker,
  submitJobs,
  terminalEvents,
  testJob,
  TIMING,
  wrapConsumer,
  type ConformanceHarness,
  type TransportFaults,
} from './conformance-kit.js';

export function registerLifecycleCases(h: () => ConformanceHarness): void {
  it('cancellation of a running job reaches it through renewal and aborts its signal', async () => {
    const job = testJob('conf.cancel');
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let reason: unknown;
    const handler = defineHandler(job, {
      prepare: () => [{ key: 'wait', input: 0 }],
      execute: (_u, ctx) =>
        new Promise<number>((_resolve, reject) => {
          started();
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            reject(ctx.signal.reason as Error);
          });
        }),
      finalize: () => ({ n: 0 }),
    });
    const [id] = await submitJobs(h(), job, [{ n: 1 }]);
    const worker = startTestWorker(
      h(),
      { [job.kind]: { v1: handler } },
      { workerId: 'cancel-w' },
      onTestFinished,
    );
    await worker.start();
    await running;
    const cancelledAt = Date.now();
    await h().database.transaction((tx) =>
      transitionJob(tx, { id: id as string, event: 'cancel' }),
    );
    await waitFor(() => reason, { timeoutMs: 3_000, intervalMs: 10, message: 'signal aborted' });
    expect(Date.now() - cancelledAt).toBeLessThan(TIMING.renewEveryMs * 4 + 300);
    expect(isSluiceError(reason) && reason.code).toBe('JOB_CANCELLED');
    await waitFor(async () => (await h().pending(job.kind)) === 0, { message: 'acked' });
    const evs = await events(h(), id as string);
    expect(evs.at(-1)).toMatchObject({ type: 'state', to: 'cancelled' });
    expect((await jobRows(h(), [id as string]))[0]?.state).toBe('cancelled');
    expect(worker.metrics().cancelled).toBe(1);
  });

  it('drain: unready at once, running work finishes or is given back within the deadline', async () => {
    const job = testJob('conf.drain');
    let secondRun = false;
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const started = new Set<number>();
    const handler = defineHandler(job, {
      prepare: () => [],
      execute: () => 0,
      finalize: async (_r, ctx) => {
        started.add(ctx.input.n);
        if (secondRun || ctx.input.n === 0) {
          await sleep(secondRun ? 0 : 150);
        } else if (ctx.input.n === 1) {
          // Cooperative: stops when its signal is aborted.
          await new Promise((_res, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
          );
        } else {
          // Ignores its signal entirely.
          await gate;
        }
        return { n: ctx.input.n };
      },
    });
    const handlers = { [job.kind]: { v1: handler } };
    const ids = await submitJobs(h(), job, [{ n: 0 }, { n: 1 }, { n: 2 }]);
    const w1 = startTestWorker(h(), handlers, { workerId: 'drain-1' }, onTestFinished);
    await w1.start();
    await waitFor(() => started.size === 3, { message: 'all three running' });
    const deadlineMs = 1200;
    const t0 = Date.now();
    const stopping = w1.stop({ deadlineMs });
    expect(w1.isReady()).toBe(false);
    await stopping;
    expect(Date.now() - t0).toBeLessThan(deadlineMs + 800);
    const rows = await jobRows(h(), ids);
    expect(rows.map((r) => r.state)).toEqual(['succeeded', 'queued', 'queued']);
    for (const id of ids.slice(1)) {
      const last = (await events(h(), id)).at(-1);
      expect(last).toMatchObject({ to: 'queued', reason: 'DRAINED' });
    }
    expect(await h().pending(job.kind)).toBe(2);
    // The attempt that ignored its signal finishes late: it must write nothing.
    const before = (await events(h(), ids[2] as string)).length;
    openGate();
    await sleep(200);
    expect((await events(h(), ids[2] as string)).length).toBe(before);
    expect((await jobRows(h(), [ids[2] as string]))[0]?.state).toBe('queued');
    secondRun = true;
    const w2 = startTestWorker(h(), handlers, { workerId: 'drain-2' }, onTestFinished);
    await w2.start();
    await waitFor(() => allTerminal(h(), ids), {
      timeoutMs: 5_000,
      message: 'given-back work finished',
    });
    expect((await jobRows(h(), ids)).map((r) => r.state)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    for (const id of ids) expect(await terminalEvents(h(), id)).toHaveLength(1);
    await waitFor(async () => (await h().pending(job.kind)) === 0, { message: 'nothing pending' });
  });

  it('readiness: not before init, unready after consecutive read failures, back on recovery, unready first on stop', async () => {
    const job = testJob('conf.ready');
    const handler = defineHandler(job, {
      prepare: () => [],
      execute: () => 0,
      finalize: async (_r, ctx) => {
        await sleep(ctx.input.ms ?? 0);
        return { n: ctx.input.n };
      },
    });
    const versions = [{ kind: job.kind, version: 'v1' }];
    const faults: TransportFaults = { failReads: false };
    const inner = h().consumer({ workerId: 'ready-w', versions, leaseMs: TIMING.leaseMs, faults });
    let initFailures = 2;
    const consumer = wrapConsumer(inner, {
      init: async () => {
        if (initFailures-- > 0) throw new Error('runtime not reachable yet');
        return inner.init();
      },
    });
    const worker = startTestWorker(
      h(),
      { [job.kind]: { v1: handler } },
      {
        workerId: 'ready-w',
        consumer,
        probes: { port: 0, hostname: '127.0.0.1' },
        unreadyAfterReadFailures: 3,
      },
      onTestFinished,
    );
    const get = async (path: string) => {
      const res = await fetch(`${worker.probes?.url}${path}`);
      return { status: res.status, body: await res.text() };
    };
    expect(worker.isReady()).toBe(false);
    const starting = worker.start();
    await waitFor(() => worker.probes, { intervalMs: 5, message: 'probes listening' });
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(503);
    await starting;
    expect(worker.isReady()).toBe(true);
    expect((await get('/readyz')).status).toBe(200);
    expect(worker.metrics().initFailures).toBe(2);

    faults.failReads = true;
    await waitFor(() => !worker.isReady(), {
      timeoutMs: 5_000,
      intervalMs: 10,
      message: 'unready',
    });
    expect(worker.metrics().consecutiveReadFailures).toBeGreaterThanOrEqual(3);
    expect((await get('/readyz')).status).toBe(503);
    const metrics = (await get('/metrics')).body;
    expect(metrics).toMatch(/^sluice_worker_read_failures_total [3-9]/m);
    expect(metrics).toMatch(/^sluice_worker_ready 0$/m);
    faults.failReads = false;
    await waitFor(() => worker.isReady(), {
      timeoutMs: 5_000,
      intervalMs: 10,
      message: 'ready again',
    });
    expect(worker.metrics().consecutiveReadFailures).toBe(0);

    const [id] = await submitJobs(h(), job, [{ n: 4, ms: 400 }]);
    await waitFor(() => worker.metrics().running === 1, { message: 'running' });
    const stopping = worker.stop({ deadlineMs: 3_000 });
    expect(worker.isReady()).toBe(false);
    expect((await get('/readyz')).status).toBe(503);
    await stopping;
    expect((await jobRows(h(), [id as string]))[0]?.state).toBe('succeeded');
  });
}
