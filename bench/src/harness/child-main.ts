// Entry of every forked child. A consumer or producer process loads the adapter's module once and
// serves runs: on `init` it connects (reports `ready`), starts only on `go`, so setup never lands
// inside a timed window, and on `end` closes the run and waits for the next one.
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  ChildInit,
  ConsumerHooks,
  CreateConsumer,
  CreateProducer,
  JobPayload,
  Producer,
} from '../adapter.js';
import { monoMs } from './clock.js';
import { countsSince, installStatementCounter, type StatementCounts } from './db-statements.js';
import type {
  ChildMessage,
  ChildSpec,
  OpenLoopSpec,
  ParentMessage,
  RunInit,
  RunReport,
} from './protocol.js';
import { profileLabel, startRunProfile } from './run-profile.js';
import type { CreateService } from './service.js';

/** How often a consumer reports its completion count (the report carries the exact last time). */
const PROGRESS_INTERVAL_MS = 5;

function send(message: ChildMessage): void {
  process.send?.(message);
}

function fail(error: unknown): never {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  send({ type: 'error', message });
  process.exit(1);
}

/**
 * Consumer and producer processes only (service children measure other things): installed by
 * serveRuns before the adapter's module loads, so every database client it makes is counted.
 */
let readStatements: () => StatementCounts = () => ({
  pgStatements: 0,
  pgRoundTrips: 0,
  sqliteStatements: 0,
});

/** One run inside a consumer or producer process: created on `init`, closed on `end`. */
interface RunState {
  /** Closes the run; returns what it did (jobs and statements since `go` / the open loop). */
  close(): Promise<RunReport>;
  go?(): void;
  collect?(): void;
  openLoop?(loop: OpenLoopSpec): void;
}

async function startConsumerRun(
  create: CreateConsumer,
  spec: ChildSpec,
  run: RunInit,
): Promise<RunState> {
  const index = spec.index;
  const series: Record<string, number[]> = {};
  const push = (name: string, ms: number) => (series[name] ??= []).push(ms);
  const sleepMs = run.handler.kind === 'sleep' ? run.handler.ms : 0;
  let done = 0;
  let lastAt = 0;
  let dirty = false;
  const hooks: ConsumerHooks = {
    handle(job, dispatchedAt) {
      const now = monoMs();
      if (run.sample && job.i >= run.warmupJobs) {
        push('dispatchToStart', now - (dispatchedAt ?? job.t));
        if (dispatchedAt !== undefined) push('acceptToStart', now - job.t);
      }
      return sleepMs > 0 ? sleep(sleepMs) : undefined;
    },
    completed(n) {
      done += n;
      lastAt = monoMs();
      dirty = true;
    },
    record(name, ms, job) {
      if (run.sample && job.i >= run.warmupJobs) push(name, ms);
    },
  };
  const init: ChildInit = { config: run.config, concurrency: run.concurrency, index };
  const consumer = await create(init, hooks);
  // BENCH_PROFILE=1: from here to the close (the worker idles until `go`).
  const profile = await startRunProfile(
    profileLabel(spec.module, run.concurrency, run.handler.kind, index),
  );
  // Only while a run is live: an idle pooled process must not wake up every 5 ms.
  let progress: NodeJS.Timeout | undefined;
  const flush = () => {
    if (!dirty) return;
    dirty = false;
    send({ type: 'progress', done, at: lastAt });
  };
  // Counted from `go`: connecting is untimed and not a job's cost; the worker's final flushes
  // during close are.
  let since: StatementCounts = readStatements();
  return {
    go() {
      since = readStatements();
      progress = setInterval(flush, PROGRESS_INTERVAL_MS);
      Promise.resolve(consumer.start()).catch(fail);
    },
    collect: () => send({ type: 'samples', series }),
    async close() {
      clearInterval(progress);
      await consumer.close();
      await profile?.stop(done);
      return { jobs: done, statements: countsSince(since, readStatements()) };
    },
  } satisfies RunState;
}

/**
 * Open loop: job i is due at start + i/rate whatever happened to earlier adds, so a slow add
 * cannot hide queueing. The stamp is taken just before `add`.
 */
async function openLoop(producer: Producer, loop: OpenLoopSpec): Promise<number> {
  const start = monoMs() + 5;
  let lateMaxMs = 0;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let firstAt = 0;
  let lastAt = 0;
  const settle = () => {
    inFlight--;
    if (inFlight === 0) drained?.();
  };
  for (let i = 0; i < loop.jobs; i++) {
    const due = start + (i * 1000) / loop.rate;
    const wait = due - monoMs();
    if (wait > 0) await sleep(wait);
    const job: JobPayload = { i, t: monoMs() };
    lateMaxMs = Math.max(lateMaxMs, job.t - due);
    if (i === 0) firstAt = job.t;
    lastAt = job.t;
    inFlight++;
    producer.add(job).then(settle, fail);
  }
  if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
  send({ type: 'produced', sent: loop.jobs, lateMaxMs, firstAt, lastAt });
  return loop.jobs;
}

async function startProducerRun(create: CreateProducer, index: number, run: RunInit) {
  const producer = await create({ config: run.config, concurrency: run.concurrency, index });
  let since: StatementCounts = readStatements();
  let sent = 0;
  return {
    openLoop(loop: OpenLoopSpec) {
      since = readStatements();
      openLoop(producer, loop).then((n) => (sent = n), fail);
    },
    async close() {
      await producer.close();
      return { jobs: sent, statements: countsSince(since, readStatements()) };
    },
  } satisfies RunState;
}

/**
 * A consumer or producer process: loads its module once, then serves runs one after the other.
 * Messages are handled in order (an `init` finishes before the `go` that follows it).
 */
function serveRuns(spec: ChildSpec): void {
  readStatements = installStatementCounter();
  const loaded = import(spec.module) as Promise<{
    createConsumer?: CreateConsumer;
    createProducer?: CreateProducer;
  }>;
  let current: RunState | undefined;
  const end = async (): Promise<RunReport | undefined> => {
    const run = current;
    current = undefined;
    return run?.close();
  };
  const handle = async (message: ParentMessage) => {
    switch (message.type) {
      case 'init': {
        const mod = await loaded;
        await end();
        if (spec.role === 'consumer') {
          if (!mod.createConsumer) throw new Error(`${spec.module} exports no createConsumer`);
          current = await startConsumerRun(mod.createConsumer, spec, message.run);
        } else {
          if (!mod.createProducer) throw new Error(`${spec.module} exports no createProducer`);
          current = await startProducerRun(mod.createProducer, spec.index, message.run);
        }
        send({ type: 'ready' });
        break;
      }
      case 'go':
        current?.go?.();
        break;
      case 'collect':
        current?.collect?.();
        break;
      case 'open-loop':
        current?.openLoop?.(message.spec);
        break;
      case 'end': {
        const report = await end();
        send({ type: 'ended', ...(report ? { report } : {}) });
        break;
      }
      case 'stop':
        await end();
        process.exit(0);
        break;
      case 'call':
        break;
    }
  };
  let queue: Promise<void> = loaded.then(() => send({ type: 'loaded' }), fail);
  process.on('message', (message: ParentMessage) => {
    queue = queue.then(() => handle(message)).catch(fail);
  });
}

async function runService(spec: ChildSpec): Promise<void> {
  const mod = (await import(spec.module)) as { createService?: CreateService };
  if (!mod.createService) throw new Error(`${spec.module} exports no createService`);
  const service = await mod.createService(spec.config ?? {});
  process.on('message', (message: ParentMessage) => {
    switch (message.type) {
      case 'call': {
        const method = service.methods[message.method];
        const reply = (ok: boolean, value?: unknown, error?: string) =>
          send({ type: 'reply', id: message.id, ok, ...(ok ? { value } : { error }) });
        if (!method) {
          reply(false, undefined, `no method ${message.method}`);
          break;
        }
        method(message.args).then(
          (value) => reply(true, value),
          (error: unknown) =>
            reply(
              false,
              undefined,
              error instanceof Error ? (error.stack ?? error.message) : String(error),
            ),
        );
        break;
      }
      case 'stop':
        service.close().then(() => process.exit(0), fail);
        break;
      case 'init':
      case 'go':
      case 'open-loop':
      case 'collect':
      case 'end':
        break;
    }
  });
  send({ type: 'ready', info: service.info });
}

async function main(): Promise<void> {
  const raw = process.env.BENCH_CHILD;
  if (!raw || !process.send) throw new Error('child-main must be forked with BENCH_CHILD set');
  // An orphaned child must never outlive the suite.
  process.on('disconnect', () => process.exit(1));
  const spec = JSON.parse(raw) as ChildSpec;
  if (spec.role === 'service') await runService(spec);
  else serveRuns(spec);
}

main().catch(fail);
