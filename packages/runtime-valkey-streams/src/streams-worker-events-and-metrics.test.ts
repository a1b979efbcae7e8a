// Catches a Streams worker that keeps its status events to itself (gateways tailing the events
// stream would never see a job finish) or hides its transport from `/metrics` (no stream
// length, pending count or claims to alert on). One worker over the conformance harness.

import { decodeStreamEvents } from './events.js';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { defineHandler } from '@sluice/worker';
import { allTerminal, startTestWorker, submitJobs, testJob } from '@sluice/worker/conformance';
import { createStreamsHarness, type StreamsHarness } from './testing/streams-harness.js';

let h: StreamsHarness;
beforeAll(async () => {
  h = await createStreamsHarness('sqlite');
});
afterAll(async () => {
  await h?.dispose();
});

it('publishes every committed status event and reports the stream on /metrics', async () => {
  const job = testJob('xm.events');
  const handler = defineHandler(job, {
    prepare: () => [{ key: 'u', input: 1 }],
    execute: (unit, ctx) => {
      ctx.progress({ step: 1 });
      return unit.input;
    },
    finalize: (_r, ctx) => ({ n: ctx.input.n }),
  });
  const ids = await submitJobs(h, job, [{ n: 1 }, { n: 2 }, { n: 3 }]);
  const worker = startTestWorker(
    h,
    { [job.kind]: { v1: handler } },
    { workerId: 'xm-w', probes: { port: 0, hostname: '127.0.0.1' } },
    onTestFinished,
  );
  await worker.start();
  await waitFor(() => allTerminal(h, ids), { message: 'all finished' });
  const published = await waitFor(async () => {
    const entries = await h.fixture.redis.xrange(h.fixture.keys.events, '-', '+');
    const events = entries.flatMap(([, fields]) => decodeStreamEvents(fields));
    const done = events.filter((e) => e.event.type === 'state' && e.event.to === 'succeeded');
    return done.length === ids.length ? events : undefined;
  });
  for (const id of ids) {
    const mine = published.filter((e) => e.event.jobId === id);
    // running (admission), progress and unit_done (event writer), succeeded (terminal writer)
    expect(mine.map((e) => e.event.type)).toEqual(['state', 'progress', 'unit_done', 'state']);
    expect(mine.map((e) => e.event.seq)).toEqual([3, 4, 5, 6]);
    expect(mine.every((e) => e.tenantId === 'acme' && e.kind === job.kind)).toBe(true);
  }
  const metrics = await (await fetch(`${worker.probes?.url}/metrics`)).text();
  const labels = `{kind="${job.kind}",version="v1"}`;
  expect(metrics).toMatch(/^sluice_worker_runtime_stats_up 1$/m);
  expect(metrics).toContain(`sluice_worker_queue_length${labels} 3`);
  expect(metrics).toContain(`sluice_worker_queue_pending${labels} 0`);
  expect(metrics).toContain(`sluice_worker_queue_consumers${labels} 1`);
  expect(metrics).toMatch(/^sluice_worker_runtime_claims_total 0$/m);
  expect(metrics).toMatch(/^sluice_worker_succeeded_total 3$/m);
  const stats = await worker.runtimeStats();
  expect(stats?.queues).toEqual([
    expect.objectContaining({ kind: job.kind, version: 'v1', pending: 0, lag: 0 }),
  ]);
});
