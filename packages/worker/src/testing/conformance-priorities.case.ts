// Conformance case of priorities, for every runtime that states `prioritizes`: with a
// backlog waiting, a job of higher priority submitted last starts first, and every job of the
// backlog still runs exactly once. (How far a runtime orders by priority differs: the embedded
// claim by exact value, a transport perhaps by band — high 1…10, normal 0, low −10…−1 — so the
// case uses priorities in different bands. Aging bounds are tested per runtime.) Registered by
// `runtimeConformance`; a runtime without the capability refuses priorities at submit instead.

import { waitFor } from '@sluice/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { defineHandler } from '../attempt/define-handler.js';
import {
  allTerminal,
  startTestWorker,
  submitJobs,
  terminalEvents,
  testJob,
  type ConformanceHarness,
} from './conformance-kit.js';

export function registerPriorityCases(h: () => ConformanceHarness): void {
  it('higher_priority_starts_first: a job of higher priority overtakes a waiting backlog', async () => {
    if (!h().capabilities.prioritizes) return;
    const job = testJob('conf.prio');
    const started: string[] = [];
    const handler = defineHandler(job, {
      prepare: (ctx) => [{ key: 'only', input: ctx.input.n }],
      execute: (unit, ctx) => {
        started.push(ctx.jobId);
        return Promise.resolve(unit.input);
      },
      finalize: (results) => ({ n: results[0]?.result ?? -1 }),
    });
    // Submitted before any worker runs: the urgent job arrives behind the whole backlog.
    const low = await submitJobs(h(), job, [{ n: 0 }, { n: 1 }], { priority: -2 });
    const normal = await submitJobs(
      h(),
      job,
      Array.from({ length: 6 }, (_, n) => ({ n })),
    );
    const [urgent] = await submitJobs(h(), job, [{ n: 9 }], { priority: 5 });
    const all = [...low, ...normal, urgent!];
    const worker = startTestWorker(
      h(),
      { [job.kind]: { v1: handler } },
      { workerId: 'prio-1', concurrency: 1, readBatch: 1 },
      onTestFinished,
    );
    await worker.start();
    await waitFor(() => allTerminal(h(), all), { timeoutMs: 20_000, message: 'all finished' });
    expect(started[0]).toBe(urgent);
    expect(started.indexOf(normal[0]!)).toBeLessThan(started.indexOf(low[0]!));
    for (const id of all) expect(await terminalEvents(h(), id)).toHaveLength(1);
  });
}
