// Conformance cases of the write model's lazy start (the `running` write waits for the start
// delay or the outcome, whichever comes first, so short jobs cost one write): a job that ends
// fast costs one write with one event row; a long job shows `running` and its progress to
// watchers once the start delay has passed, while it still runs; and a zombie's start and
// outcome written together are fenced, so it can neither finish nor overwrite the job another
// worker took over. Registered by `runtimeConformance`.

import { defineJob, type JobEvent } from '@sluice/contracts';
import { listEvents } from '@sluice/storage';
import { waitFor } from '@sluice/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import {
  jobRows,
  startTestWorker,
  submitJobs,
  TIMING,
  wrapConsumer,
  type ConformanceHarness,
} from './conformance-kit.js';

const gateJob = (kind: string) =>
  defineJob({
    kind,
    versions: { current: 'v1' },
    input: z.object({ n: z.number().int() }),
    output: z.object({ by: z.string() }),
    progress: z.object({ step: z.number() }),
  });

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let entered = false;
  return { opened, open: () => open(), enter: () => (entered = true), entered: () => entered };
}

/** A handler that reports progress, then waits for its gate; the output names the worker. */
function gatedHandler(kind: string, by: string, g: ReturnType<typeof gate>) {
  const job = gateJob(kind);
  return defineHandler(job, {
    prepare: () => [{ key: 'only', input: 0 }],
    execute: async (_unit, ctx) => {
      ctx.progress({ step: 1 });
      g.enter();
      await g.opened;
      return 0;
    },
    finalize: () => ({ by }),
  });
}

async function eventRows(h: ConformanceHarness, id: string): Promise<number> {
  const rows = await h.database.db
    .selectFrom('job_events')
    .select('id')
    .where('job_id', '=', id)
    .execute();
  return rows.length;
}

const kinds = (events: JobEvent[]) => events.map((e) => ('to' in e ? `${e.type}:${e.to}` : e.type));

export function registerLazyStartCases(h: () => ConformanceHarness): void {
  it('a job that ends before its first write is stored by ONE write: one event row, every event in order', async () => {
    const job = gateJob('conf.lazy.fast');
    const handler = defineHandler(job, {
      prepare: () => [{ key: 'only', input: 0 }],
      execute: (_u, ctx) => (ctx.progress({ step: 1 }), 0),
      finalize: () => ({ by: 'fast' }),
    });
    const [id] = (await submitJobs(h(), job, [{ n: 1 }])) as [string];
    const accepted = await eventRows(h(), id);
    const w = startTestWorker(
      h(),
      { [job.kind]: { v1: handler } },
      { workerId: 'fast' },
      onTestFinished,
    );
    await w.start();
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      message: 'succeeded',
    });
    const events = await listEvents(h().database.db, id);
    expect(kinds(events)).toEqual([
      'state:accepted',
      'state:queued',
      'state:running',
      'progress',
      'unit_done',
      'state:succeeded',
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    // ONE row for everything the attempt wrote, after what the accept wrote.
    expect(await eventRows(h(), id)).toBe(accepted + 1);
  });

  it('watchers of a long job see it running, with its progress, once the start delay passed', async () => {
    const g = gate();
    const kind = 'conf.lazy.long';
    const [id] = (await submitJobs(h(), gateJob(kind), [{ n: 1 }])) as [string];
    const w = startTestWorker(
      h(),
      { [kind]: { v1: gatedHandler(kind, 'long', g) } },
      { workerId: 'long', lazyStartMs: 100 },
      onTestFinished,
    );
    await w.start();
    // The handler is still waiting on its gate: what watchers see is what is stored by now.
    await waitFor(async () => kinds(await listEvents(h().database.db, id)).includes('progress'), {
      timeoutMs: 5_000,
      message: 'running and progress stored while the job runs',
    });
    expect(g.entered()).toBe(true);
    expect((await jobRows(h(), [id]))[0]?.state).toBe('running');
    g.open();
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      message: 'succeeded',
    });
    expect(kinds(await listEvents(h().database.db, id))).toEqual([
      'state:accepted',
      'state:queued',
      'state:running',
      'progress',
      'unit_done',
      'state:succeeded',
    ]);
  });

  it('a zombie that never wrote cannot start or finish a job another worker took over', async (ctx) => {
    if (h().capabilities.startsOnClaim) {
      // Its claim is the start: there is no unwritten attempt to become a zombie; the claim's
      // own fence is covered by the reclaim and renewal cases.
      console.log('skipped: startsOnClaim (the claim is the start, no lazy start)');
      ctx.skip();
    }
    const kind = 'conf.lazy.zombie';
    const [zg, tg] = [gate(), gate()];
    const [id] = (await submitJobs(h(), gateJob(kind), [{ n: 1 }])) as [string];
    const versions = [{ kind, version: 'v1' }];
    // The zombie believes its renewals work while its claim lapses in the transport.
    const zombieConsumer = wrapConsumer(
      h().consumer({ workerId: 'zombie', versions, leaseMs: TIMING.leaseMs }),
      { renew: async (ds) => ds.map(() => 'renewed' as const) },
    );
    const zombie = startTestWorker(
      h(),
      { [kind]: { v1: gatedHandler(kind, 'zombie', zg) } },
      { workerId: 'zombie', consumer: zombieConsumer, lazyStartMs: 60_000 },
      onTestFinished,
    );
    await zombie.start();
    await waitFor(() => zg.entered(), { message: 'zombie running, nothing written' });
    expect((await jobRows(h(), [id]))[0]).toMatchObject({ state: 'queued', epoch: 0 });
    const taker = startTestWorker(
      h(),
      { [kind]: { v1: gatedHandler(kind, 'taker', tg) } },
      { workerId: 'taker', lazyStartMs: 20 },
      onTestFinished,
    );
    await taker.start();
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'running', {
      timeoutMs: 10_000,
      message: 'the taker started the job',
    });
    // The zombie finishes now: its start + outcome write is refused by its fence.
    zg.open();
    await waitFor(() => zombie.metrics().lostLeases > 0, { message: 'the zombie learns it lost' });
    expect((await jobRows(h(), [id]))[0]).toMatchObject({ state: 'running', epoch: 1 });
    tg.open();
    await waitFor(async () => (await jobRows(h(), [id]))[0]?.state === 'succeeded', {
      message: 'the taker finished',
    });
    const [row] = await jobRows(h(), [id]);
    expect(row).toMatchObject({ attempts: 1, output: { by: 'taker' } });
    expect(zombie.metrics().succeeded).toBe(0);
    const events = await listEvents(h().database.db, id);
    expect(kinds(events).filter((k) => k === 'state:running')).toHaveLength(1);
    expect(kinds(events).filter((k) => k === 'state:succeeded')).toHaveLength(1);
  });
}
