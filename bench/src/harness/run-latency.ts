// One latency run: consumers wait on an empty queue; a separate producer process adds jobs open
// loop at `rate` for `seconds`; each handler records now − stamp on its first line. The first
// `warmupSeconds` of jobs are excluded from the percentiles (not from completion counting).
import type { BenchAdapter, BenchServices } from '../adapter.js';
import { perThousand, startAccounting } from './accounting.js';
import type { ChildPool } from './child-pool.js';
import type { ChildHandle } from './children.js';
import { monoMs } from './clock.js';
import { costProbeFor, databaseAfter, runCost, type PgCostProbe } from './pg-cost.js';
import type { RunReport } from './protocol.js';
import {
  checkEndState,
  completionWatch,
  newRunId,
  phaseClock,
  type RunOutcome,
} from './run-shared.js';
import { summarizeLatency, type LatencySummary } from './stats.js';

export interface LatencySpec {
  rate: number;
  seconds: number;
  warmupSeconds: number;
  concurrency: number;
  processes: number;
  /**
   * After the last add, the clock stops here even if the backlog is not drained (a subject that
   * cannot keep up owes thousands of jobs); its missing samples count at a lower bound.
   */
  drainCapSeconds: number;
}

/** Time for consumers to enter their read loop after `go`, before the first add. */
const CONSUMER_SETTLE_MS = 300;

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

/**
 * A capped drain leaves jobs that never started: each waited at least from the last add to the
 * cap (every job was stamped by then), so that lower bound stands in for its missing sample and
 * the percentiles become lower bounds rather than the latency of the lucky jobs only.
 */
function padMissing(values: number[], expected: number, lowerBoundMs: number): number {
  const missing = Math.max(0, expected - values.length);
  for (let k = 0; k < missing; k++) values.push(lowerBoundMs);
  return missing;
}

export async function runLatency(
  adapter: BenchAdapter,
  services: BenchServices,
  spec: LatencySpec,
  ctx: { pool: ChildPool },
): Promise<RunOutcome> {
  const queue = adapter.queue;
  if (!queue?.producerModule) throw new Error(`${adapter.id} has no latency producer`);
  const jobs = Math.round(spec.rate * spec.seconds);
  const warmupJobs = Math.round(spec.rate * spec.warmupSeconds);
  const clock = phaseClock();
  const prepared = await queue.prepare(services, {
    jobs: 0,
    runId: newRunId(),
    processes: spec.processes,
    concurrency: spec.concurrency,
  });
  clock.mark('prepare');
  let consumers: ChildHandle[] = [];
  let producers: ChildHandle[] = [];
  let released = false;
  let producerReports: (RunReport | undefined)[] = [];
  let consumerReports: (RunReport | undefined)[] = [];
  let probe: PgCostProbe | undefined;
  const release = async () => {
    if (released) return;
    released = true;
    const reports = await ctx.pool.release([...producers, ...consumers]);
    producerReports = reports.slice(0, producers.length);
    consumerReports = reports.slice(producers.length);
  };
  try {
    probe = await costProbeFor(adapter, services);
    const run = { config: prepared.child, handler: { kind: 'noop' as const }, warmupJobs };
    const [c, p] = await Promise.all([
      ctx.pool.acquire('consumer', queue.consumerModule, spec.processes, {
        ...run,
        concurrency: spec.concurrency,
        sample: true,
      }),
      ctx.pool.acquire('producer', queue.producerModule, 1, {
        ...run,
        concurrency: 1,
        sample: false,
      }),
    ]);
    consumers = c.children;
    producers = p.children;
    const producer = producers[0] as ChildHandle;
    const watch = completionWatch(consumers, jobs);
    clock.mark('children');
    await prepared.beforeGo?.();
    clock.mark('prepare');
    const dbBefore = await probe?.sample('before');
    for (const child of consumers) child.send({ type: 'go' });
    await new Promise((resolve) => setTimeout(resolve, CONSUMER_SETTLE_MS));
    const accounting = await startAccounting(services, adapter.needs, {
      workers: consumers.map((c) => c.pid),
      producer: [producer.pid],
      ...(prepared.enginePids ? { engine: prepared.enginePids } : {}),
    });
    const failures = [producer.failed, ...consumers.map((c) => c.failed)];
    const drainCapMs = spec.drainCapSeconds * 1000;
    const produced = producer.next('produced', spec.seconds * 1000 + 60_000);
    producer.send({ type: 'open-loop', spec: { rate: spec.rate, jobs } });
    const sent = await Promise.race([produced, ...failures]);
    // The clock for the backlog: a subject that cannot keep up is measured up to the cap.
    const cap = new Promise<'capped'>((resolve) => {
      const timer = setTimeout(() => resolve('capped'), drainCapMs);
      void watch.reached.finally(() => clearTimeout(timer));
    });
    const reached = await Promise.race([watch.reached, cap, ...failures]);
    const capped = reached === 'capped';
    const completed = Math.min(jobs, watch.done());
    const lastCompletion = capped ? monoMs() : reached;
    watch.close();
    const cpu = await accounting.finish();
    clock.mark('measure');
    const series = await collectSamples(consumers);
    await release();
    // Once the children's backends are gone: each published its counters as it exited.
    const database = await databaseAfter(probe, dbBefore);
    const cost = runCost(consumerReports, producerReports, database);
    clock.mark('teardown');
    const verify = prepared.verify
      ? await checkEndState(adapter.id, prepared.verify, { jobs, completed })
      : undefined;
    const main = series.dispatchToStart ?? [];
    const missingSamples = capped
      ? padMissing(main, jobs - warmupJobs, lastCompletion - sent.lastAt)
      : 0;
    const summaries: Record<string, LatencySummary> = {};
    for (const [name, values] of Object.entries(series)) summaries[name] = summarizeLatency(values);
    const summary = summaries.dispatchToStart;
    if (!summary || summary.count === 0) throw new Error(`${adapter.id}: no latency samples`);
    clock.mark('verify');
    const seriesMetrics: Record<string, number> = {};
    for (const [name, s] of Object.entries(summaries)) {
      if (name === 'dispatchToStart') continue;
      seriesMetrics[`${name}P50`] = s.p50;
      seriesMetrics[`${name}P99`] = s.p99;
    }
    return {
      metrics: {
        p50: summary.p50,
        p99: summary.p99,
        max: summary.max,
        ...seriesMetrics,
        ...perThousand(cpu, completed, queue.engineServer === true),
        ...cost?.metrics,
      },
      detail: {
        offeredPerSec: spec.rate,
        sent: sent.sent,
        achievedPerSec: ((sent.sent - 1) * 1000) / (sent.lastAt - sent.firstAt),
        producerLateMaxMs: sent.lateMaxMs,
        drainAfterLastAddMs: lastCompletion - sent.lastAt,
        completed,
        // Not every job finished within drainCapSeconds of the last add: the unstarted ones count
        // at the lower bound (see padMissing), so p50/p99/max are lower bounds.
        capped,
        drainCapSeconds: spec.drainCapSeconds,
        ...(capped ? { missingSamples } : {}),
        series: summaries,
        cpuMs: cpu,
        ...(cost ? { cost: cost.detail } : {}),
        ...(verify ? { verify } : {}),
        workerPids: consumers.map((c) => c.pid),
        forkedChildren: c.forked + p.forked,
      },
      phases: clock.phases,
    };
  } finally {
    await release();
    await probe?.close();
    await prepared.cleanup();
    clock.mark('teardown');
  }
}
