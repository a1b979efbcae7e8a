// The fairness row: tenant B submits one job every `intervalMs` while the workers are idle (the
// idle figure), then tenant A enqueues a backlog of `backlog` jobs at once and B goes on
// submitting at the same pace while A's backlog drains (the loaded figure). Both figures come
// from the same run and the same worker process: B's dispatch (its accept commit) → start.
// A fair queue keeps B's loaded p99 near its idle p99; a FIFO queue makes B wait for A's backlog.
import type { BenchAdapter, BenchServices, TenantFeed } from '../adapter.js';
import type { ChildPool } from './child-pool.js';
import type { ChildHandle } from './children.js';
import { monoMs } from './clock.js';
import { completionWatch, newRunId, phaseClock, type RunOutcome } from './run-shared.js';
import { summarizeLatency } from './stats.js';

export interface FairnessSpec {
  /** Tenant A's jobs, enqueued at once. */
  backlog: number;
  /** Tenant B submits one job per interval. */
  intervalMs: number;
  /** B's jobs before A's backlog (idle figure) and after it (loaded figure). */
  idleJobs: number;
  loadedJobs: number;
  concurrency: number;
  /** After B's last submit, the backlog may drain this long before the clock stops. */
  drainCapSeconds: number;
}

const TENANT_A = 'tenant-a';
const TENANT_B = 'tenant-b';
/** Payload indexes: A's backlog from 0 (not sampled), B's from here on (sampled). */
const B_FROM = 1_000_000;
const CONSUMER_SETTLE_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** B's open loop: job k is due at start + k × interval whatever happened to earlier submits. */
async function submitEvery(feed: TenantFeed, n: number, intervalMs: number, from: number) {
  const start = monoMs();
  for (let k = 0; k < n; k++) {
    const wait = start + k * intervalMs - monoMs();
    if (wait > 0) await sleep(wait);
    await feed.submit(TENANT_B, { i: from + k, t: monoMs() });
  }
}

async function samples(child: ChildHandle): Promise<number[]> {
  const reply = child.next('samples', 10_000);
  child.send({ type: 'collect' });
  const { series } = await reply;
  return [...(series.dispatchToStart ?? [])];
}

export async function runFairness(
  adapter: BenchAdapter,
  services: BenchServices,
  spec: FairnessSpec,
  ctx: { pool: ChildPool },
): Promise<RunOutcome> {
  const queue = adapter.queue;
  if (!queue?.tenantFeed) throw new Error(`${adapter.id} has no tenant feed`);
  const clock = phaseClock();
  const prepared = await queue.prepare(services, {
    jobs: 0,
    runId: newRunId(),
    processes: 1,
    concurrency: spec.concurrency,
    fairness: true,
  });
  let consumers: ChildHandle[] = [];
  let feed: TenantFeed | undefined;
  try {
    feed = await queue.tenantFeed(services, prepared);
    clock.mark('prepare');
    const acquired = await ctx.pool.acquire('consumer', queue.consumerModule, 1, {
      config: prepared.child,
      handler: { kind: 'noop' },
      warmupJobs: B_FROM,
      concurrency: spec.concurrency,
      sample: true,
    });
    consumers = acquired.children;
    const consumer = consumers[0] as ChildHandle;
    const total = spec.idleJobs + spec.backlog + spec.loadedJobs;
    const watch = completionWatch(consumers, total);
    clock.mark('children');
    consumer.send({ type: 'go' });
    await sleep(CONSUMER_SETTLE_MS);
    await submitEvery(feed, spec.idleJobs, spec.intervalMs, B_FROM);
    await sleep(spec.intervalMs * 5);
    const idle = await samples(consumer);
    const backlogStart = monoMs();
    await feed.backlog(TENANT_A, spec.backlog, 0);
    const backlogWriteMs = monoMs() - backlogStart;
    await submitEvery(feed, spec.loadedJobs, spec.intervalMs, B_FROM + spec.idleJobs);
    // A's backlog still queued when B's last job was submitted: B ran beside it, not after it.
    const backlogLeft = await feed.queued(TENANT_A);
    const cap = sleep(spec.drainCapSeconds * 1000).then(() => 'capped' as const);
    const reached = await Promise.race([watch.reached, cap, consumer.failed]);
    const bLeft = await feed.queued(TENANT_B);
    watch.close();
    clock.mark('measure');
    const loaded = (await samples(consumer)).slice(idle.length);
    const i = summarizeLatency(idle);
    const l = summarizeLatency(loaded);
    clock.mark('verify');
    return {
      metrics: {
        idleP50: i.p50,
        idleP99: i.p99,
        p50: l.p50,
        p99: l.p99,
        max: l.max,
        backlogLeft,
      },
      detail: {
        idle: i,
        loaded: l,
        backlogWriteMs,
        backlogLeftAtLastB: backlogLeft,
        // B's jobs not started when the clock stopped (a capped drain): counted, not sampled.
        bUnstartedAtEnd: bLeft,
        capped: reached === 'capped',
        completed: watch.done(),
      },
      phases: clock.phases,
    };
  } finally {
    await ctx.pool.release(consumers);
    await feed?.close();
    await prepared.cleanup();
    clock.mark('teardown');
  }
}
