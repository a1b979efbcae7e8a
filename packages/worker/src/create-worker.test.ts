// The worker end to end on the embedded runtime, beyond the conformance suite: how each kind of
// ending is stored, that progress is stored in order and before the terminal event, that a
// completion burst shares one terminal transaction, and the configuration checks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NeedsReviewError,
  NonRetriableError,
  RetryAfterError,
  type AnyJobDefinition,
} from '@sluice/contracts';
import { createLocalBlobStore, enqueue } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { createEmbeddedRuntime } from './backends/create-embedded-runtime.js';
import { createWorker } from './create-worker.js';
import { defineHandler, type Handler } from './attempt/define-handler.js';
import { installShutdown } from './host/install-shutdown.js';
import {
  allTerminal,
  events,
  jobRows,
  startTestWorker,
  submitJobs,
  testJob,
  type ConformanceHarness,
} from './testing/conformance-kit.js';
import { EMBEDDED_CAPABILITIES } from './runtimes/embedded.js';

describeEachDialect('createWorker on the embedded runtime', (ctx) => {
  const harness = (): ConformanceHarness => {
    const { database } = ctx();
    const dir = mkdtempSync(join(tmpdir(), 'sluice-blobs-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    return {
      capabilities: EMBEDDED_CAPABILITIES,
      database,
      blobs: createLocalBlobStore(dir),
      consumer: (spec) => createEmbeddedRuntime({ database, ...spec, pollMs: 10, blockMs: 100 }),
      dispatch: (pointers, tx) => enqueue(tx ?? database.db, pointers),
      pending: async () => 0,
      dispose: async () => {},
    };
  };
  const run = async (h: ConformanceHarness, handler: Handler, inputs: unknown[], opts = {}) => {
    const ids = await submitJobs(h, handler.job, inputs);
    const worker = startTestWorker(
      h,
      { [handler.job.kind]: { v1: handler } },
      opts,
      onTestFinished,
    );
    await worker.start();
    await waitFor(() => allTerminal(h, ids), { timeoutMs: 8_000, message: 'terminal' });
    return { ids, worker, rows: await jobRows(h, ids) };
  };
  const throwing = (job: AnyJobDefinition, error: () => unknown) =>
    defineHandler(job, {
      prepare: () => [],
      execute: () => 0,
      finalize: () => {
        throw error();
      },
    });

  it('stores each kind of ending with its error', async () => {
    const h = harness();
    const fail = await run(
      h,
      throwing(testJob('w.fail'), () => new NonRetriableError('bad')),
      [{ n: 1 }],
    );
    expect(fail.rows[0]).toMatchObject({
      state: 'failed',
      attempts: 1,
      error: { kind: 'non_retriable', message: 'bad' },
    });
    const review = await run(
      h,
      throwing(testJob('w.review'), () => new NeedsReviewError('look')),
      [{ n: 1 }],
    );
    expect(review.rows[0]).toMatchObject({
      state: 'needs_review',
      error: { kind: 'needs_review' },
    });
    const badOut = defineHandler(testJob('w.badout'), {
      prepare: () => [],
      execute: () => 0,
      // @ts-expect-error the output must be { n: number }
      finalize: () => ({ n: 'x' }),
    });
    const out = await run(h, badOut, [{ n: 1 }]);
    expect(out.rows[0]).toMatchObject({ state: 'failed', error: { kind: 'non_retriable' } });
    expect(String(out.rows[0]?.error?.message)).toMatch(/output schema/);
  });

  it('retries after RetryAfterError no sooner than asked, then succeeds', async () => {
    const h = harness();
    const starts: number[] = [];
    const handler = defineHandler(testJob('w.later'), {
      prepare: () => [],
      execute: () => 0,
      finalize: (_r, ctx) => {
        starts.push(Date.now());
        if (ctx.attempt === 1) throw new RetryAfterError('rate limited', 300);
        return { n: ctx.attempt };
      },
    });
    const { rows, ids } = await run(h, handler, [{ n: 1 }]);
    expect(rows[0]).toMatchObject({
      state: 'succeeded',
      output: { n: 2 },
      attempts: 2,
      error: null,
    });
    expect((starts[1] ?? 0) - (starts[0] ?? 0)).toBeGreaterThanOrEqual(300);
    const retry = (await events(h, ids[0] as string)).find(
      (e) => 'to' in e && e.to === 'queued' && e.seq > 2,
    );
    expect(retry).toMatchObject({ error: { kind: 'retry_after', retryAfterMs: 300 } });
  });

  it('stores progress in order, every event before the terminal one', async () => {
    const h = harness();
    const handler = defineHandler(testJob('w.progress'), {
      prepare: () => Array.from({ length: 8 }, (_, i) => ({ key: `u${i}`, input: i })),
      execute: async (u, ctx) => {
        for (let k = 0; k < 5; k++) {
          ctx.progress({ step: u.input * 10 + k });
          await new Promise((r) => setTimeout(r, 1));
        }
        return u.input;
      },
      finalize: (results, ctx) => {
        ctx.progress({ step: 999 });
        return { n: results.length };
      },
    });
    const { ids } = await run(h, handler, [{ n: 1 }], { unitConcurrency: 1 });
    const evs = await events(h, ids[0] as string);
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1));
    expect(evs.at(-1)).toMatchObject({ type: 'state', to: 'succeeded' });
    const steps = evs.flatMap((e) =>
      e.type === 'progress' ? [(e.data as { step: number }).step] : [],
    );
    expect(steps).toEqual([
      ...Array.from({ length: 40 }, (_, i) => Math.floor(i / 5) * 10 + (i % 5)),
      999,
    ]);
    expect(evs.filter((e) => e.type === 'unit_done')).toHaveLength(8);
  });

  it('commits a burst of completions in a few terminal transactions, not one per job', async () => {
    const h = harness();
    const handler = defineHandler(testJob('w.burst'), {
      prepare: () => [],
      execute: () => 0,
      finalize: (_r, ctx) => ({ n: ctx.input.n }),
    });
    const inputs = Array.from({ length: 40 }, (_, n) => ({ n }));
    const { rows, worker } = await run(h, handler, inputs, { concurrency: 20, readBatch: 20 });
    expect(rows.every((r) => r.state === 'succeeded')).toBe(true);
    const m = worker.metrics();
    expect(m.succeeded).toBe(40);
    expect(m.terminalBatches).toBeLessThanOrEqual(8);
  });

  it('two workers of one process with default ids never take each other’s running jobs (each runs once)', async () => {
    const h = harness();
    const job = testJob('w.two');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs = new Map<string, number>();
    const handler = defineHandler(job, {
      prepare: () => [{ key: 'u', input: 0 }],
      execute: async (_u, c) => {
        runs.set(c.jobId, (runs.get(c.jobId) ?? 0) + 1);
        await gate;
        return 0;
      },
      finalize: (_r, c) => ({ n: c.input.n }),
    });
    const handlers = { [job.kind]: { v1: handler } };
    const ids = await submitJobs(h, job, [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    const a = startTestWorker(h, handlers, {}, onTestFinished);
    await a.start();
    await waitFor(() => runs.size === ids.length, { timeoutMs: 8_000, message: 'a runs all' });
    // With a shared id, b's first claims take a's running jobs back as "its own" from a restart.
    const b = startTestWorker(h, handlers, {}, onTestFinished);
    await b.start();
    await new Promise((r) => setTimeout(r, 300));
    release();
    await waitFor(() => allTerminal(h, ids), { timeoutMs: 8_000, message: 'terminal' });
    expect([...runs.values()]).toEqual([1, 1, 1, 1]);
    expect(b.workerId).not.toBe(a.workerId);
  });

  it('beats its liveness row while it runs and withdraws it on a clean stop', async () => {
    const h = harness();
    const job = testJob('w.live');
    const handler = defineHandler(job, {
      prepare: () => [],
      execute: () => 0,
      finalize: (_r, c) => ({ n: c.input.n }),
    });
    const worker = startTestWorker(
      h,
      { [job.kind]: { v1: handler } },
      { livenessEveryMs: 100, deadAfterMs: 1000 },
      onTestFinished,
    );
    const row = () =>
      h.database.db
        .selectFrom('worker_liveness')
        .select('alive_until')
        .where('worker_id', '=', worker.workerId)
        .executeTakeFirst();
    await worker.start();
    const first = await waitFor(row, { timeoutMs: 5_000, message: 'the first beat' });
    // It keeps beating: its row is alive further on.
    await waitFor(async () => ((await row())?.alive_until ?? '') > first.alive_until, {
      timeoutMs: 5_000,
      message: 'a later beat',
    });
    await worker.stop();
    expect(await row()).toBeUndefined();
  });

  it('refuses a configuration that cannot work', () => {
    const { database } = ctx();
    const job = testJob('w.config');
    const handler = throwing(job, () => new Error('x'));
    const base = {
      jobs: { [job.kind]: job },
      handlers: { [job.kind]: { v1: handler } },
      database,
      concurrency: 1,
      runtime: createEmbeddedRuntime({ database, versions: [] }),
    };
    expect(() => createWorker({ ...base, leaseMs: 1000, renewEveryMs: 1000 })).toThrow(
      /shorter than leaseMs/,
    );
    expect(() => createWorker({ ...base, concurrency: 0 })).toThrow(/concurrency/);
    expect(() => createWorker({ ...base, handlers: { 'other.kind': { v1: handler } } })).toThrow(
      /does not define/,
    );
    expect(() => createWorker({ ...base, handlers: { [job.kind]: { latest: handler } } })).toThrow(
      /not a version/,
    );
  });
});

it('installShutdown drains on SIGTERM, then exits 0; a second signal exits at once', async () => {
  const codes: number[] = [];
  let stopped = 0;
  let release!: () => void;
  const worker = {
    stop: () => {
      stopped++;
      return new Promise<void>((r) => (release = r));
    },
  };
  const uninstall = installShutdown(worker, { exit: (c) => codes.push(c), signals: ['SIGUSR2'] });
  onTestFinished(uninstall);
  process.emit('SIGUSR2', 'SIGUSR2');
  expect(stopped).toBe(1);
  process.emit('SIGUSR2', 'SIGUSR2');
  expect(codes).toEqual([1]);
  release();
  await new Promise((r) => setTimeout(r, 0));
  expect(codes).toEqual([1, 0]);
});
