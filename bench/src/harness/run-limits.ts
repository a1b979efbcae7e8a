// The provider-limits row (10): worker processes on one job database drain jobs whose one
// unit makes a guarded call to a provider declared with `maxConcurrent` and `callsPerSecond`.
// The provider is a real HTTP server in this (parent) process that answers after `delayMs` and
// records, on its own clock, every arrival and how many requests were in flight. The figures are
// what the provider saw: the most requests in flight (bound: maxConcurrent), the busiest 1 s
// window of arrivals (bound: burst + rate + slack), and how much of the rate limit the workers
// used (the calls after the initial burst, per second between the first and last arrival, ÷
// callsPerSecond).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchAdapter, BenchServices } from '../adapter.js';
import type { ChildPool } from './child-pool.js';
import type { ChildHandle } from './children.js';
import { monoMs } from './clock.js';
import { completionWatch, newRunId, phaseClock, timeout, type RunOutcome } from './run-shared.js';

export interface LimitsSpec {
  jobs: number;
  processes: number;
  concurrency: number;
  /** The provider answers each request after this long. */
  delayMs: number;
  maxConcurrent: number;
  callsPerSecond: number;
  /** Upper bound for the whole drain (it is limited to ~callsPerSecond jobs/s by design). */
  timeoutSeconds: number;
}

/** Requests delayed between taking a token and reaching the wire (the guard's documented slack). */
export const WINDOW_SLACK = 3;

interface Provider {
  url: string;
  arrivals: number[];
  mostInFlight: number;
  close(): Promise<void>;
}

async function startProvider(delayMs: number): Promise<Provider> {
  let inFlight = 0;
  const state = { arrivals: [] as number[], mostInFlight: 0 };
  const server: Server = createServer((req, res) => {
    inFlight++;
    state.mostInFlight = Math.max(state.mostInFlight, inFlight);
    state.arrivals.push(monoMs());
    req.resume();
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }, delayMs);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get arrivals() {
      return state.arrivals;
    },
    get mostInFlight() {
      return state.mostInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The most arrivals in any window [a, a + windowMs) starting at an arrival (sorted input). */
export function busiestWindow(sorted: readonly number[], windowMs: number): number {
  let most = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] as number) - (sorted[lo] as number) >= windowMs) lo++;
    most = Math.max(most, hi - lo + 1);
  }
  return most;
}

export async function runLimits(
  adapter: BenchAdapter,
  services: BenchServices,
  spec: LimitsSpec,
  ctx: { pool: ChildPool },
): Promise<RunOutcome> {
  const queue = adapter.queue;
  if (!queue) throw new Error(`${adapter.id} has no queue adapter`);
  const clock = phaseClock();
  const provider = await startProvider(spec.delayMs);
  let children: ChildHandle[] = [];
  const prepared = await queue.prepare(services, {
    jobs: spec.jobs,
    runId: newRunId(),
    processes: spec.processes,
    concurrency: spec.concurrency,
  });
  try {
    clock.mark('prepare');
    const limits = { maxConcurrent: spec.maxConcurrent, callsPerSecond: spec.callsPerSecond };
    const acquired = await ctx.pool.acquire('consumer', queue.consumerModule, spec.processes, {
      config: { ...prepared.child, provider: { url: provider.url, limits } },
      concurrency: spec.concurrency,
      handler: { kind: 'noop' },
      sample: false,
      warmupJobs: 0,
    });
    children = acquired.children;
    const watch = completionWatch(children, spec.jobs);
    clock.mark('children');
    const limit = timeout(spec.timeoutSeconds * 1000, `${adapter.id} limits drain`);
    const start = monoMs();
    for (const child of children) child.send({ type: 'go' });
    let end: number;
    try {
      end = await Promise.race([watch.reached, limit.promise, ...children.map((c) => c.failed)]);
    } finally {
      limit.clear();
      watch.close();
    }
    clock.mark('measure');
    const arrivals = [...provider.arrivals].sort((a, b) => a - b);
    const first = arrivals[0] ?? start;
    const last = arrivals[arrivals.length - 1] ?? start;
    // Over the span of arrivals, minus the first call (n calls span n − 1 intervals).
    const callsPerSec = last > first ? ((arrivals.length - 1) * 1000) / (last - first) : 0;
    const burst = Math.max(1, spec.callsPerSecond);
    // Use of the rate limit: the bucket starts full, so `burst` calls go at once and the rest
    // can go no faster than callsPerSecond; 100 % means the workers kept the limit saturated.
    const paced = arrivals.length - burst;
    const pacedPerSec = paced > 0 && last > first ? (paced * 1000) / (last - first) : 0;
    return {
      metrics: {
        maxInFlight: provider.mostInFlight,
        busiestSecond: busiestWindow(arrivals, 1_000),
        rateUse: (100 * pacedPerSec) / spec.callsPerSecond,
        totalSeconds: (end - start) / 1000,
      },
      detail: {
        calls: arrivals.length,
        completed: watch.done(),
        callsPerSec,
        pacedPerSec,
        bounds: {
          maxInFlight: spec.maxConcurrent,
          busiestSecond: burst + spec.callsPerSecond + WINDOW_SLACK,
        },
        firstCallMs: first - start,
        workerPids: children.map((c) => c.pid),
      },
      phases: clock.phases,
    };
  } finally {
    await ctx.pool.release(children);
    await provider.close();
    await prepared.cleanup();
    clock.mark('teardown');
  }
}
