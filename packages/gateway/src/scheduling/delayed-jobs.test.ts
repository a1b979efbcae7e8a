// Delayed jobs through the real gateway: a submit with `delayMs`/`runAt` waits `scheduled` (not
// claimable, listed, cancellable) and the due-job scheduler moves it to `queued` when due — once,
// whatever the number of replicas — with its events in order; a runtime without `delaysJobs`
// refuses such a submit and writes nothing.
import { EMBEDDED_CAPABILITIES } from '@sluice/contracts';
import { claimJobs, getJobById, listEvents } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDispatchPath } from '../dispatch/dispatch.js';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';
import { createDueScheduler } from './due-scheduler.js';

const codeOf = (e: { data: unknown }) => (e.data as { code?: string } | undefined)?.code;

describeEachDialect('delayed jobs', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), { scheduler: { maxSleepMs: 100 } });
  });
  afterAll(async () => {
    await f.close();
  });

  const states = async (id: string) =>
    (await listEvents(ctx().database.db, id)).map((e) => (e.type === 'state' ? e.to : e.type));

  it('waits scheduled until due, unclaimable and listed, then is queued once with its events in order', async () => {
    const c = f.http(f.keyA);
    const submitted = Date.now();
    // Long enough that the reads below finish before it is due on a loaded machine (700 ms did
    // not: the scheduler had queued it before the list read).
    const delayMs = 3000;
    const { id, state } = await c.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'later' },
      delayMs,
    });
    expect(state).toBe('scheduled');
    const view = await c.jobs.get.query({ id });
    expect(view.state).toBe('scheduled');
    expect(Date.parse(view.runAt ?? '')).toBeGreaterThanOrEqual(submitted + delayMs);
    const listed = await c.jobs.list.query({ state: 'scheduled' });
    expect(listed.items.map((j) => j.id)).toContain(id);
    // A worker claiming now gets nothing of it.
    const claimed = await claimJobs(ctx().database, {
      versions: [{ kind: 'demo.echo', version: 'v1' }],
      owner: 'w-test',
      leaseMs: 5000,
      limit: 100,
    });
    expect(claimed.map((j) => j.job.id)).not.toContain(id);
    await waitFor(async () => (await getJobById(ctx().database.db, id))?.state === 'queued', {
      timeoutMs: 10_000,
      message: 'delayed job queued',
    });
    const queuedAt = Date.parse((await getJobById(ctx().database.db, id))?.updatedAt ?? '');
    expect(queuedAt).toBeGreaterThanOrEqual(submitted + delayMs);
    expect(await states(id)).toEqual(['accepted', 'scheduled', 'queued']);
  });

  it('a runAt in the past runs at once; runAt and delayMs together, or a year ahead, are refused and write nothing', async () => {
    const c = f.http(f.keyA);
    const past = await c.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'now' },
      runAt: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(past.state).toBe('queued');
    const before = await f.counts();
    const both = await errorOf(
      c.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: 'x' },
        runAt: new Date(Date.now() + 60_000).toISOString(),
        delayMs: 10,
      }),
    );
    expect(codeOf(both)).toBe('BAD_REQUEST');
    const far = await errorOf(
      c.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: 'x' },
        runAt: new Date(Date.now() + 400 * 86_400_000).toISOString(),
      }),
    );
    expect(codeOf(far)).toBe('BAD_REQUEST');
    expect(await f.counts()).toEqual(before);
  });

  it('a cancelled scheduled job stays cancelled when its time comes', async () => {
    const c = f.http(f.keyA);
    const { id } = await c.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'never' },
      // The cancel must land before it is due, even on a loaded machine.
      delayMs: 2000,
    });
    expect(await c.jobs.cancel.mutate({ id })).toEqual({ id, state: 'cancelled' });
    await new Promise((r) => setTimeout(r, 2500));
    expect((await getJobById(ctx().database.db, id))?.state).toBe('cancelled');
    expect(await states(id)).toEqual(['accepted', 'scheduled', 'cancelled']);
  });

  it('two replicas’ schedulers move every due job exactly once', async () => {
    const c = f.http(f.keyA);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(
        (await c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: `r${i}` }, delayMs: 300 }))
          .id,
      );
    }
    const database = ctx().database;
    const runtime = createEmbeddedDispatcher(database);
    const moved: string[] = [];
    const make = (owner: string) =>
      createDueScheduler({
        database,
        runtime,
        dispatch: createDispatchPath(runtime, database, () => {}),
        owner,
        pageSize: 7,
        onEvents: (events) => moved.push(...events.map((e) => e.event.jobId)),
      });
    const [a, b] = [make('replica-a'), make('replica-b')];
    const due = Date.now() + 1000;
    // The fixture's own scheduler is a third replica; all three race on the same due jobs.
    await Promise.all([a.tick(due), b.tick(due), a.tick(due), b.tick(due)]);
    await waitFor(
      async () => {
        const rows = await Promise.all(ids.map((id) => getJobById(database.db, id)));
        return rows.every((r) => r?.state === 'queued');
      },
      { timeoutMs: 5000, message: 'all due jobs queued' },
    );
    for (const id of ids) {
      expect((await states(id)).filter((s) => s === 'queued')).toHaveLength(1);
    }
    expect(new Set(moved).size).toBe(moved.length);
    await Promise.all([a.close(), b.close()]);
  });

  it('a runtime that cannot delay jobs refuses a delayed submit with BAD_REQUEST and writes nothing', async () => {
    const database = ctx().database;
    const runtime = {
      ...createEmbeddedDispatcher(database),
      capabilities: { ...EMBEDDED_CAPABILITIES, delaysJobs: false },
    };
    const g = await startGateway(ctx(), { runtime });
    try {
      const before = await g.counts();
      const error = await errorOf(
        g.http(g.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' }, delayMs: 5 }),
      );
      expect(codeOf(error)).toBe('BAD_REQUEST');
      expect(error.message).toMatch(/cannot delay/);
      const after = await g.counts();
      expect(after.jobs).toBe(before.jobs);
      expect(after.events).toBe(before.events);
    } finally {
      await g.close();
    }
  });
});
