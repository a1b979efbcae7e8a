// Entry of every forked child. It loads the adapter's consumer or producer module, reports `ready`
// once connections are up, and starts only on `go`, so setup never lands inside a timed window.
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
import type { ChildMessage, ChildSpec, OpenLoopSpec, ParentMessage } from './protocol.js';
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

async function runConsumer(spec: ChildSpec, init: ChildInit): Promise<void> {
  const mod = (await import(spec.module)) as { createConsumer?: CreateConsumer };
  if (!mod.createConsumer) throw new Error(`${spec.module} exports no createConsumer`);
  const series: Record<string, number[]> = {};
  const push = (name: string, ms: number) => (series[name] ??= []).push(ms);
  const sleepMs = spec.handler.kind === 'sleep' ? spec.handler.ms : 0;
  let done = 0;
  let lastAt = 0;
  let dirty = false;
  const hooks: ConsumerHooks = {
    handle(job, dispatchedAt) {
      const now = monoMs();
      if (spec.sample && job.i >= spec.warmupJobs) {
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
      if (spec.sample && job.i >= spec.warmupJobs) push(name, ms);
    },
  };
  const consumer = await mod.createConsumer(init, hooks);
  const progress = setInterval(() => {
    if (!dirty) return;
    dirty = false;
    send({ type: 'progress', done, at: lastAt });
  }, PROGRESS_INTERVAL_MS);
  process.on('message', (message: ParentMessage) => {
    switch (message.type) {
      case 'go':
        Promise.resolve(consumer.start()).catch(fail);
        break;
      case 'collect':
        send({ type: 'samples', series });
        break;
      case 'stop':
        clearInterval(progress);
        consumer.close().then(() => process.exit(0), fail);
        break;
      case 'open-loop':
      case 'call':
        break;
    }
  });
  send({ type: 'ready' });
}

/**
 * Open loop: job i is due at start + i/rate whatever happened to earlier adds, so a slow add
 * cannot hide queueing. The stamp is taken just before `add`.
 */
async function openLoop(producer: Producer, loop: OpenLoopSpec): Promise<void> {
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
}

async function runProducer(spec: ChildSpec, init: ChildInit): Promise<void> {
  const mod = (await import(spec.module)) as { createProducer?: CreateProducer };
  if (!mod.createProducer) throw new Error(`${spec.module} exports no createProducer`);
  const producer = await mod.createProducer(init);
  process.on('message', (message: ParentMessage) => {
    switch (message.type) {
      case 'open-loop':
        openLoop(producer, message.spec).catch(fail);
        break;
      case 'stop':
        producer.close().then(() => process.exit(0), fail);
        break;
      case 'go':
      case 'collect':
      case 'call':
        break;
    }
  });
  send({ type: 'ready' });
}

async function runService(spec: ChildSpec): Promise<void> {
  const mod = (await import(spec.module)) as { createService?: CreateService };
  if (!mod.createService) throw new Error(`${spec.module} exports no createService`);
  const service = await mod.createService(spec.config);
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
      case 'go':
      case 'open-loop':
      case 'collect':
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
  const init: ChildInit = { config: spec.config, concurrency: spec.concurrency, index: spec.index };
  if (spec.role === 'service') await runService(spec);
  else if (spec.role === 'consumer') await runConsumer(spec, init);
  else await runProducer(spec, init);
}

main().catch(fail);
