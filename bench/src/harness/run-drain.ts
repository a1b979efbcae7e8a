// One drain run: prefill N jobs (untimed), initialise the consumer processes (pooled: see
// child-pool.ts), wait for `ready`, send `go`, stop the clock when the children have reported N
// completions (or when the adapter says the work is durably done, if later), or at the cap.
import type { BenchAdapter, BenchServices, HandlerSpec } from '../adapter.js';
import { perThousand, startAccounting, type CpuBreakdown } from './accounting.js';
import type { ChildPool } from './child-pool.js';
import type { ChildHandle } from './children.js';
import { monoMs } from './clock.js';
import {
  costProbeFor,
  databaseAfter,
  runCost,
  type PgCostProbe,
  type PgCounters,
} from './pg-cost.js';
import type { RunReport } from './protocol.js';
import {
  checkEndState,
  completionWatch,
  newRunId,
  phaseClock,
  timeout,
  type RunOutcome,
} from './run-shared.js';

export interface DrainSpec {
  jobs: number;
  concurrency: number;
  processes: number;
  handler: HandlerSpec;
  /**
   * Stop the clock at this many seconds even if not all jobs are done (row 5: a slow subject must
   * not eat the suite's time budget). jobs/s and CPU then count the jobs completed by then.
   */
  maxSeconds?: number;
}

type Watch = { lastAt(): number; done(): number };

/**
 * Resolves with the latest completion time once `ms` have passed; also notes the count at half
 * time, so a capped run can report its rate after warm-up (`steadyJobsPerSec`, detail only).
 */
function capAfter(
  ms: number,
  watch: Watch,
): { promise: Promise<number>; half(): { done: number; at: number } | undefined; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  let half: { done: number; at: number } | undefined;
  const halfTimer = setTimeout(() => (half = { done: watch.done(), at: watch.lastAt() }), ms / 2);
  const promise = new Promise<number>((resolve) => {
    timer = setTimeout(() => resolve(watch.lastAt()), ms);
  });
  return {
    promise,
    half: () => half,
    clear: () => {
      clearTimeout(timer);
      clearTimeout(halfTimer);
    },
  };
}

export async function runDrain(
  adapter: BenchAdapter,
  services: BenchServices,
  spec: DrainSpec,
  ctx: { pool: ChildPool; timeoutMs: number },
): Promise<RunOutcome> {
  const queue = adapter.queue;
  if (!queue) throw new Error(`${adapter.id} has no queue adapter`);
  const clock = phaseClock();
  const prepared = await queue.prepare(services, {
    jobs: spec.jobs,
    runId: newRunId(),
    processes: spec.processes,
    concurrency: spec.concurrency,
  });
  clock.mark('prepare');
  let children: ChildHandle[] = [];
  let released = false;
  let reports: (RunReport | undefined)[] = [];
  let probe: PgCostProbe | undefined;
  const release = async () => {
    if (released) return;
    released = true;
    reports = await ctx.pool.release(children);
  };
  try {
    probe = await costProbeFor(adapter, services);
    const acquired = await ctx.pool.acquire('consumer', queue.consumerModule, spec.processes, {
      config: prepared.child,
      concurrency: spec.concurrency,
      handler: spec.handler,
      sample: false,
      warmupJobs: 0,
    });
    children = acquired.children;
    clock.mark('children');
    // A push-based engine's queue can only be filled once its workers' endpoint exists.
    await prepared.beforeGo?.();
    clock.mark('prepare');
    const watch = completionWatch(children, spec.jobs);
    const accounting = await startAccounting(services, adapter.needs, {
      workers: children.map((c) => c.pid),
      ...(prepared.enginePids ? { engine: prepared.enginePids } : {}),
    });
    const dbBefore: PgCounters | undefined = await probe?.sample('before');
    clock.mark('children');
    const limit = timeout(ctx.timeoutMs, `${adapter.id} drain of ${spec.jobs}`);
    const start = monoMs();
    for (const child of children) child.send({ type: 'go' });
    const cap = spec.maxSeconds ? capAfter(spec.maxSeconds * 1000, watch) : undefined;
    let lastCompletion: number;
    try {
      lastCompletion = await Promise.race([
        watch.reached,
        limit.promise,
        ...(cap ? [cap.promise] : []),
        ...children.map((c) => c.failed),
      ]);
    } finally {
      limit.clear();
      cap?.clear();
    }
    const completed = Math.min(spec.jobs, watch.done());
    watch.close();
    const capped = completed < spec.jobs;
    // A capped run has no "all durable" moment: it is measured up to its last reported completion.
    const settledAt = prepared.settle && !capped ? await prepared.settle() : lastCompletion;
    const end = Math.max(lastCompletion, settledAt);
    const cpu: CpuBreakdown = await accounting.finish();
    clock.mark('measure');
    // The workers end the run first: a capped run leaves them mid-drain, and the check must not
    // race them.
    await release();
    // Once the children's backends are gone: each published its counters as it exited.
    const database = await databaseAfter(probe, dbBefore);
    const cost = runCost(reports, [], database);
    clock.mark('teardown');
    const verify = prepared.verify
      ? await checkEndState(adapter.id, prepared.verify, { jobs: spec.jobs, completed })
      : undefined;
    clock.mark('verify');
    const elapsedMs = end - start;
    if (completed === 0) throw new Error(`${adapter.id}: no job completed within the cap`);
    const half = capped ? cap?.half() : undefined;
    const steadyJobsPerSec =
      half && lastCompletion > half.at
        ? ((completed - half.done) * 1000) / (lastCompletion - half.at)
        : undefined;
    const jobsPerSec = (completed * 1000) / elapsedMs;
    const capacity =
      spec.handler.kind === 'sleep'
        ? (spec.concurrency * spec.processes * 1000) / spec.handler.ms
        : 0;
    return {
      metrics: {
        jobsPerSec,
        ...(capacity > 0 ? { capShare: (100 * jobsPerSec) / capacity } : {}),
        ...perThousand(cpu, completed, queue.engineServer === true),
        ...cost?.metrics,
      },
      detail: {
        elapsedMs,
        prefillMs: clock.phases.prepare,
        // go → the first reported completion batch (progress is reported every 5 ms).
        firstCompletionMs: watch.firstAt() > 0 ? watch.firstAt() - start : undefined,
        completed,
        capped,
        ...(spec.maxSeconds ? { capSeconds: spec.maxSeconds } : {}),
        ...(steadyJobsPerSec !== undefined ? { steadyJobsPerSec } : {}),
        settleMs: end - lastCompletion,
        completionsReported: watch.done(),
        cpuMs: cpu,
        ...(cost ? { cost: cost.detail } : {}),
        ...(verify ? { verify } : {}),
        workerPids: children.map((c) => c.pid),
        forkedChildren: acquired.forked,
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
