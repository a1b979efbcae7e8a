// On the embedded runtime a job held by a `maxRunning` slot waits on the key's waiting list
// (host/start-gate.ts): it is not claimed again while the slot stays taken, a slot given back
// starts the next waiter at once in priority-then-age order, a cancelled holder's slot wakes it
// too, and a wake that never came (a crash right after the release) costs the backstop delay,
// never the job. Claims are counted by the jobs' epochs (each claim raises it by one).
import { defineJob, formatJobId } from '@sluice/contracts';
import { acceptJobs, getJobsByIds, transitionJob, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import type { AttemptJob } from '../attempt/attempt.js';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker, type CreateWorkerOptions } from '../create-worker.js';
import { startLimitWorkers } from '../testing/limit-workers.js';
import { createStartGate, resolveKindLimits } from './start-gate.js';

const job = defineJob({
  kind: 'wait.list',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ ok: z.boolean() }),
  maxAttempts: 1,
  limits: { maxRunning: 1 },
});

const row = (n: number, priority = 0) => ({
  id: formatJobId('v1'),
  tenantId: 't',
  kind: job.kind,
  version: 'v1',
  input: { n },
  inputHash: `h${n}`,
  maxAttempts: 1,
  priority,
  outcome: { to: 'queued' as const },
});

/** Job 0 runs until `release` (or its cancel); the others run briefly. Starts are recorded. */
function blockingHandler() {
  let release: () => void = () => undefined;
  const blocked = new Promise<void>((r) => (release = r));
  const starts: { n: number; at: number }[] = [];
  const handler = defineHandler(job, {
    prepare: () => [{ key: 'u', input: 0 }],
    execute: async (_u, c) => {
      starts.push({ n: c.input.n, at: performance.now() });
      if (c.input.n === 0)
        await Promise.race([
          blocked,
          new Promise((r) => c.signal.addEventListener('abort', r, { once: true })),
        ]);
      else await new Promise((r) => setTimeout(r, 30));
      return 1;
    },
    finalize: () => ({ ok: true }),
  });
  return { handler, starts, release: () => release() };
}

async function epochs(database: SluiceDatabase, ids: string[]): Promise<number[]> {
  const rows = await getJobsByIds(database.db, ids);
  return ids.map((id) => rows.get(id)?.epoch ?? -1);
}

async function heldWaiting(database: SluiceDatabase, ids: string[]) {
  await waitFor(
    async () =>
      [...(await getJobsByIds(database.db, ids)).values()].every(
        (r) => r.state === 'queued' && r.waiting?.by === 'concurrency',
      ),
    { timeoutMs: 10_000, message: 'jobs held on the waiting list' },
  );
}

describeEachDialect('maxRunning waiting lists on the embedded runtime', (ctx) => {
  async function start(handler: unknown, overrides: Partial<CreateWorkerOptions> = {}) {
    const test = ctx();
    return startLimitWorkers({
      count: 1,
      job,
      handler,
      runtime: 'embedded',
      database: test.database,
      open: test.open,
      concurrency: 4,
      overrides: { limitWaitBackstopMs: 30_000, ...overrides },
    });
  }

  it('held jobs are not claimed again while the slot stays taken; a release starts them at once, priority then age', async () => {
    const { database } = ctx();
    const h = blockingHandler();
    const blocker = row(0);
    const waiters = [row(1), row(2), row(3, 5)];
    await acceptJobs(database, [blocker]);
    const workers = await start(h.handler);
    try {
      await waitFor(() => h.starts.length === 1, { timeoutMs: 10_000, message: 'blocker' });
      for (const w of waiters) await acceptJobs(database, [w]);
      const ids = waiters.map((w) => w.id);
      await heldWaiting(database, ids);
      const first = await epochs(database, ids);
      // With the default hold delays (1 s, growing) each would be claimed again in this time.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await epochs(database, ids)).toEqual(first);
      const released = performance.now();
      h.release();
      await waitFor(() => h.starts.length === 4, { timeoutMs: 10_000, message: 'waiters ran' });
      expect(h.starts.slice(1).map((s) => s.n)).toEqual([3, 1, 2]);
      // The next waiter starts well within the old 1 s first hold delay (30 s backstop here).
      expect(h.starts[1]!.at - released).toBeLessThan(700);
    } finally {
      h.release();
      await Promise.all(workers.map((w) => w.stop({ deadlineMs: 2_000 })));
    }
  }, 30_000);

  it('a cancelled holder gives its slot back to the next waiter at once', async () => {
    const { database } = ctx();
    const h = blockingHandler();
    const blocker = row(0);
    const waiter = row(11);
    await acceptJobs(database, [blocker]);
    const workers = await start(h.handler, { renewEveryMs: 100 });
    try {
      await waitFor(() => h.starts.length === 1, { timeoutMs: 10_000, message: 'blocker' });
      await acceptJobs(database, [waiter]);
      await heldWaiting(database, [waiter.id]);
      await database.db
        .transaction()
        .execute((tx) => transitionJob(tx, { id: blocker.id, event: 'cancel' }));
      const cancelled = performance.now();
      await waitFor(() => h.starts.length === 2, { timeoutMs: 10_000, message: 'waiter ran' });
      // The cancel is seen at the next renewal (100 ms), then the release wakes the waiter.
      expect(h.starts[1]!.at - cancelled).toBeLessThan(1_000);
    } finally {
      h.release();
      await Promise.all(workers.map((w) => w.stop({ deadlineMs: 2_000 })));
    }
  }, 30_000);

  it('a lost wake (the slot gone, nobody woken) costs the backstop delay, not the job', async () => {
    const { database } = ctx();
    const h = blockingHandler();
    const blocker = row(0);
    const waiter = row(21);
    await acceptJobs(database, [blocker]);
    const workers = await start(h.handler, { limitWaitBackstopMs: 1_500 });
    try {
      await waitFor(() => h.starts.length === 1, { timeoutMs: 10_000, message: 'blocker' });
      await acceptJobs(database, [waiter]);
      await heldWaiting(database, [waiter.id]);
      // The release as a crash leaves it: the slot row gone, its wake never made.
      await database.db
        .deleteFrom('limit_slots' as never)
        .where('key' as never, '=', `kind:${job.kind}` as never)
        .execute();
      await waitFor(() => h.starts.length === 2, { timeoutMs: 10_000, message: 'waiter ran' });
      const rows = await getJobsByIds(database.db, [waiter.id]);
      expect(rows.get(waiter.id)?.epoch).toBe(2);
    } finally {
      h.release();
      await Promise.all(workers.map((w) => w.stop({ deadlineMs: 2_000 })));
    }
  }, 30_000);

  it('a slot that lapsed with its holder (a crashed worker) wakes its waiter at the next renewal round', async () => {
    const { database } = ctx();
    const h = blockingHandler();
    const waiter = row(41);
    // The dead holder's slot, renewed last just now: it lapses in 500 ms and nobody releases it.
    await database.db
      .insertInto('limit_slots' as never)
      .values({
        key: `kind:${job.kind}`,
        holder: 'job:dead',
        expires_at: Date.now() + 500,
      } as never)
      .execute();
    const workers = await start(h.handler, { renewEveryMs: 100 });
    try {
      const accepted = performance.now();
      await acceptJobs(database, [waiter]);
      await waitFor(() => h.starts.length === 1, { timeoutMs: 10_000, message: 'waiter ran' });
      // The backstop is 30 s here: the renewal's sweep of lapsed slots woke it.
      expect(h.starts[0]!.at - accepted).toBeLessThan(5_000);
    } finally {
      h.release();
      await Promise.all(workers.map((w) => w.stop({ deadlineMs: 2_000 })));
    }
  }, 30_000);

  it('a slot given back before the hold was stored: the holder’s re-check wakes its job', async () => {
    const { database } = ctx();
    const gate = createStartGate({
      database,
      limits: resolveKindLimits({ [job.kind]: job }),
      slotTtlMs: 60_000,
    });
    const [a, b] = [row(30), row(31)];
    await acceptJobs(database, [a, b]);
    const attempt = (j: typeof a): AttemptJob => ({
      ...j,
      fileIds: [],
      epoch: 1,
      attempts: 1,
      attemptId: 'x',
    });
    const entered = await gate.enter(attempt(a), undefined, true);
    const refused = await gate.enter(attempt(b), undefined, true);
    if (!entered.ok || refused.ok || !refused.list) throw new Error('expected a slot, then a hold');
    expect(refused.retryAfterMs).toBe(60_000);
    // A's slot goes back while B's hold is still being written: nobody waits yet.
    await entered.entry.release();
    const backstop = new Date(Date.now() + refused.retryAfterMs).toISOString();
    await database.db
      .updateTable('jobs')
      .set({ waiting: JSON.stringify(refused.waiting), run_after: backstop })
      .where('id', '=', b.id)
      .execute();
    await gate.waited(refused.list);
    const rows = await getJobsByIds(database.db, [b.id]);
    expect(Date.parse(rows.get(b.id)?.runAfter ?? backstop)).toBeLessThanOrEqual(Date.now());
  });

  it('limitWaitBackstopMs that is not a positive whole number is INVALID_CONFIG naming it', () => {
    const { database } = ctx();
    const make = (ms: number) => () =>
      createWorker({
        jobs: { [job.kind]: job },
        handlers: { [job.kind]: { v1: blockingHandler().handler } },
        database,
        concurrency: 1,
        runtime: (c) => createEmbeddedRuntime({ database, ...c }),
        limitWaitBackstopMs: ms,
      } as CreateWorkerOptions);
    expect(make(0)).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringMatching(/limitWaitBackstopMs/),
      }),
    );
    expect(make(1.5)).toThrow(/limitWaitBackstopMs/);
  });
});
