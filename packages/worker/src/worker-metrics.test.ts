// The worker's job state log lines, and its `/metrics` on prom-client: the counters and gauges keep their names, the three
// histograms (dispatch→start, job duration, provider call) count what ran, process figures are
// there, and two workers in one process each have their own registry (no "already registered"
// collision, no figures of the other).
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { usePaidHarness } from './testing/paid-harness.js';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describeEachDialect('worker metrics', (ctx) => {
  const harness = usePaidHarness(ctx);

  it('logs each state change; histograms count each job, start and provider call; two workers never share a registry', async () => {
    const h = harness();
    const ids = await h.submit([
      { call: 'sync', units: 2 },
      { call: 'safe', units: 1 },
    ]);
    const worker = await h.worker();
    await h.settle(ids);
    // A second worker in the same process, started once the work is done: its own registry.
    const idle = await h.worker({ workerId: 'idle-worker' });
    await worker.stop();
    await idle.stop();
    const [text, other] = await Promise.all([worker.scrapeMetrics(), idle.scrapeMetrics()]);
    expect(sample(text, 'sluice_worker_succeeded_total')).toBe(2);
    expect(sample(other, 'sluice_worker_succeeded_total')).toBe(0);
    expect(other).not.toMatch(/^sluice_worker_job_duration_seconds_count/m);

    expect(text).toMatch(/^# TYPE sluice_worker_succeeded_total counter$/m);
    expect(text).toMatch(/^# TYPE sluice_worker_running gauge$/m);
    expect(sample(text, 'sluice_worker_provider_calls_total')).toBe(3);
    expect(sample(text, 'sluice_worker_ready')).toBe(0); // stopped
    expect(text).toMatch(/^# TYPE sluice_worker_job_duration_seconds histogram$/m);
    expect(
      sample(text, 'sluice_worker_job_duration_seconds_count{kind="xp.paid",outcome="succeed"}'),
    ).toBe(2);
    expect(sample(text, 'sluice_worker_dispatch_to_start_seconds_count{kind="xp.paid"}')).toBe(2);
    const calls = (cls: string) =>
      sample(text, `sluice_worker_provider_call_seconds_count{class="${cls}",outcome="succeeded"}`);
    expect((calls('ambiguous') ?? 0) + (calls('retry_safe') ?? 0)).toBe(3);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    // One debug line per stored state change, with id, kind, version and attempt…
    for (const id of ids) {
      const states = h.logs.filter(
        (l) => l.level === 'debug' && l.message === 'job state' && l.fields?.jobId === id,
      );
      expect(states.map((l) => l.fields)).toEqual([
        expect.objectContaining({ kind: 'xp.paid', version: 'v1', attempt: 1, to: 'running' }),
        expect.objectContaining({ kind: 'xp.paid', version: 'v1', attempt: 1, to: 'succeeded' }),
      ]);
    }
    // …and at info the summary of them, written at the latest when the worker stops.
    const summaries = h.logs.filter((l) => l.level === 'info' && l.message === 'job states');
    const count = (state: string) =>
      summaries.reduce((n, l) => n + Number(l.fields?.[state] ?? 0), 0);
    expect([count('running'), count('succeeded')]).toEqual([2, 2]);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });
});
