// One latency run: consumers wait on an empty queue; a separate producer process adds jobs open
// loop at `rate` for `seconds`; each handler records now − stamp on its first line. The first
// `warmupSeconds` of jobs are excluded from the percentiles (not from completion counting).
import type { BenchAdapter, BenchServices } from '../adapter.js';
import { perThousand, startAccounting } from './accounting.js';
import { forkChild, stopAll, type ChildHandle } from './children.js';
import {
  checkEndState,
  completionWatch,
  forkConsumers,
  newRunId,
  timeout,
  type RunOutcome,
} from './run-shared.js';
import { summarizeLatency, type LatencySummary } from './stats.js';

export interface LatencySpec {
  rate: number;
  seconds: number;
  warmupSeconds: number;
  concurrency: number;
  processes: number;
}

/** Time for consumers to enter their read loop after `go`, before the first add. */
const CONSUMER_SETTLE_MS = 300;
/** After the last add, how long the consumers may take to finish the backlog (a saturated subject
 * at 1,000/s × 10 s can owe several thousand jobs: its latency is then reported, not a timeout). */
const DRAIN_GRACE_MS = 60_000;

async function collectSamples(children: readonly ChildHandle[]): Promise<Record<string, number[]>> {
  const merged: Record<string, number[]> = {};
  for (const child of children) {
    const reply = child.next('samples', 10_000);
    child.send({ type: 'collect' });
    const { series } = await reply;
    for (const [name, values] of Object.entries(series)) {
      const into = (merged[name] ??= []);
      for (const v of values) into.push(v);
    }
  }
  return merged;
}

export async function runLatency(
  adapter: BenchAdapter,
  services: BenchServices,
  spec: LatencySpec,
): Promise<RunOutcome> {
  const queue = adapter.queue;
  if (!queue?.producerModule) throw new Error(`${adapter.id} has no latency producer`);
  const jobs = Math.round(spec.rate * spec.seconds);
  const warmupJobs = Math.round(spec.rate * spec.warmupSeconds);
  const prepared = await queue.prepare(services, {
    jobs: 0,
    runId: newRunId(),
    processes: spec.processes,
    concurrency: spec.concurrency,
  });
  let consumers: ChildHandle[] = [];
  let producer: ChildHandle | undefined;
  try {
    consumers = await forkConsumers(queue.consumerModule, prepared.child, {
      count: spec.processes,
      concurrency: spec.concurrency,
      handler: { kind: 'noop' },
      sample: true,
      warmupJobs,
    });
    producer = forkChild({
      role: 'producer',
      module: queue.producerModule,
      config: prepared.child,
      concurrency: 1,
      index: 0,
      handler: { kind: 'noop' },
      warmupJobs,
      sample: false,
    });
    await producer.next('ready', 60_000);
    const watch = completionWatch(consumers, jobs);
    for (const child of consumers) child.send({ type: 'go' });
    await new Promise((resolve) => setTimeout(resolve, CONSUMER_SETTLE_MS));
    const accounting = await startAccounting(services, adapter.needs, {
      workers: consumers.map((c) => c.pid),
      producer: [producer.pid],
    });
    const failures = [producer.failed, ...consumers.map((c) => c.failed)];
    const produced = producer.next('produced', spec.seconds * 1000 + DRAIN_GRACE_MS);
    producer.send({ type: 'open-loop', spec: { rate: spec.rate, jobs } });
    const sent = await Promise.race([produced, ...failures]);
    const limit = timeout(DRAIN_GRACE_MS, `${adapter.id} latency drain`);
    let lastCompletion: number;
    try {
      lastCompletion = await Promise.race([watch.reached, limit.promise, ...failures]);
    } finally {
      limit.clear();
    }
    const cpu = await accounting.finish();
    const verify = prepared.verify
      ? await checkEndState(adapter.id, prepared.verify, jobs)
      : undefined;
    const series = await collectSamples(consumers);
    const summaries: Record<string, LatencySummary> = {};
    for (const [name, values] of Object.entries(series)) summaries[name] = summarizeLatency(values);
    const main = summaries.dispatchToStart;
    if (!main || main.count === 0) throw new Error(`${adapter.id}: no latency samples`);
    const seriesMetrics: Record<string, number> = {};
    for (const [name, s] of Object.entries(summaries)) {
      if (name === 'dispatchToStart') continue;
      seriesMetrics[`${name}P50`] = s.p50;
      seriesMetrics[`${name}P99`] = s.p99;
    }
    return {
      metrics: {
        p50: main.p50,
        p99: main.p99,
        max: main.max,
        ...seriesMetrics,
        ...perThousand(cpu, jobs),
      },
      detail: {
        offeredPerSec: spec.rate,
        sent: sent.sent,
        achievedPerSec: ((sent.sent - 1) * 1000) / (sent.lastAt - sent.firstAt),
        producerLateMaxMs: sent.lateMaxMs,
        drainAfterLastAddMs: lastCompletion - sent.lastAt,
        series: summaries,
        cpuMs: cpu,
        ...(verify ? { verify } : {}),
      },
    };
  } finally {
    await stopAll(producer ? [producer, ...consumers] : consumers);
    await prepared.cleanup();
  }
}
