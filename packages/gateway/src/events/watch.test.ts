import { appendAttemptEvents, listEvents } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { spawnNode, waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { reportProgress, startJob, succeedJob } from '../testing/drive.js';
import { record, startGateway, type GatewayFixture } from '../testing/fixture.js';
import { createEventHub } from './event-hub.js';
import { openJobWatch } from './watch-job.js';

/** What a watcher receives, as far as these tests look. */
type Item = { id: string; data: { jobId: string; seq: number; type: string; to?: string } };
type Feed = { kind: string; event: { jobId: string; seq: number; type: string; to?: string } };
const seqs = (items: Item[]) => items.map((i) => i.data.seq);

describeEachDialect('watch', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  const submit = async (text = 'w') =>
    (await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text } })).id;

  it('backfills, tails events written by others, and ends after the terminal event', async () => {
    const id = await submit();
    const { client } = f.ws(f.keyA);
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    await w.until(2);
    const epoch = await startJob(ctx().database, id);
    await reportProgress(ctx().database, id, epoch, 1);
    await reportProgress(ctx().database, id, epoch, 2);
    await succeedJob(ctx().database, id, epoch, { text: 'W' });
    await w.done;
    expect(seqs(w.items)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(w.items.map((i) => i.id)).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(w.items[3]?.data).toMatchObject({ type: 'progress', data: { done: 1 } });
    expect(w.items[5]?.data).toMatchObject({ type: 'state', to: 'succeeded' });

    // Resuming after event 4 yields 5 and 6 only; after the end, nothing.
    const resumed = record<Item>((h) => client.jobs.watch.subscribe({ id, lastEventId: '4' }, h));
    await resumed.done;
    expect(seqs(resumed.items)).toEqual([5, 6]);
    const after = record<Item>((h) => client.jobs.watch.subscribe({ id, lastEventId: '6' }, h));
    await after.done;
    expect(after.items).toEqual([]);
  });

  it('misses nothing when the server kills the socket mid-watch', async () => {
    const id = await submit();
    const { client } = f.ws(f.keyA);
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    const epoch = await startJob(ctx().database, id);
    await w.until(3);
    f.gateway.websocket.terminateAll();
    for (let i = 1; i <= 5; i++) await reportProgress(ctx().database, id, epoch, i);
    await succeedJob(ctx().database, id, epoch, { text: 'K' });
    await w.done;
    expect(seqs(w.items)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('tails events written by a second process', async () => {
    const id = await submit();
    const { client } = f.ws(f.keyA);
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    await w.until(2);
    const child = await spawnNode(new URL('../testing/writer-child.ts', import.meta.url), {
      env: { DB_URL: ctx().url, JOB_ID: id },
    });
    const exit = await child.exited;
    expect(exit.code, child.output()).toBe(0);
    await w.done;
    expect(seqs(w.items)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(w.items.at(-1)?.data).toMatchObject({ to: 'succeeded' });
  });

  it('returns to the baseline listener count after 200 subscribe/abort cycles', async () => {
    const id = await submit();
    const { client } = f.ws(f.keyA);
    const baseline = f.gateway.hub.listenerCount();
    for (let i = 0; i < 200; i++) {
      const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
      await w.until(2);
      w.stop();
    }
    await waitFor(() => f.gateway.hub.listenerCount() === baseline, { timeoutMs: 5000 });
    expect(f.gateway.hub.listenerCount()).toBe(baseline);
  }, 60_000);

  it('filters the tenant feed by kind and state, and shows no other tenant', async () => {
    const { client } = f.ws(f.keyA);
    const { client: clientB } = f.ws(f.keyB);
    const all = record<Feed>((h) => client.jobs.watchAll.subscribe({}, h));
    const echoDone = record<Feed>((h) =>
      client.jobs.watchAll.subscribe({ kinds: ['demo.echo'], states: ['succeeded'] }, h),
    );
    const rollout = record<Feed>((h) =>
      client.jobs.watchAll.subscribe({ kinds: ['demo.rollout'] }, h),
    );
    const other = record<Feed>((h) => clientB.jobs.watchAll.subscribe({}, h));
    await waitFor(() => f.gateway.hub.listenerCount() >= 4);
    const r = await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.rollout', input: { n: 1 } });
    const id = await submit('feed');
    const epoch = await startJob(ctx().database, id);
    await reportProgress(ctx().database, id, epoch, 1);
    await succeedJob(ctx().database, id, epoch, { text: 'F' });
    await echoDone.until(1);
    await all.until(7);
    expect(all.items.map((i) => [i.event.jobId === r.id ? 'r' : 'e', i.event.seq])).toEqual([
      ['r', 1],
      ['r', 2],
      ['e', 1],
      ['e', 2],
      ['e', 3],
      ['e', 4],
      ['e', 5],
    ]);
    expect(echoDone.items).toHaveLength(1);
    expect(echoDone.items[0]).toMatchObject({
      kind: 'demo.echo',
      event: { jobId: id, to: 'succeeded' },
    });
    expect(rollout.items.map((i) => i.event.seq)).toEqual([1, 2]);
    expect(other.items).toEqual([]);
  });

  it('fills a gap in what the hub delivers from the database', async () => {
    const database = ctx().database;
    const hub = createEventHub(undefined);
    const id = await submit('gap');
    const epoch = await startJob(database, id);
    const controller = new AbortController();
    const gen = await openJobWatch(
      { db: database.db, hub },
      'acme',
      { id, lastEventId: '3' },
      controller.signal,
    );
    const got: number[] = [];
    const reading = (async () => {
      for await (const [, event] of gen) got.push(event.seq);
    })();
    await waitFor(() => hub.listenerCount() === 1);
    const stored = await database.transaction((tx) =>
      appendAttemptEvents(tx, id, epoch, [
        { type: 'progress', data: { done: 1 } },
        { type: 'progress', data: { done: 2 } },
      ]),
    );
    hub.publish([stored![1]!]); // event 5 arrives, 4 never does: read from the database
    await waitFor(() => got.length === 2);
    expect(got).toEqual([4, 5]);
    hub.publish(stored!); // late duplicates are skipped
    await succeedJob(database, id, epoch, {});
    const [last] = await listEvents(database.db, id, 5);
    hub.publish([{ id: 1e9, tenantId: 'acme', kind: 'demo.echo', event: last! }]);
    await reading;
    expect(got).toEqual([4, 5, 6]);
    expect(hub.listenerCount()).toBe(0);
  });

  it('keeps tailing after the listener connection is killed (PostgreSQL only)', async (t) => {
    if (ctx().dialect !== 'postgres') return t.skip('SQLite has no listener connection');
    const id = await submit('reconnect');
    const { client } = f.ws(f.keyA);
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    await w.until(2);
    const admin = ctx().open();
    const killed = await admin.pgPool!.query(
      "select pg_terminate_backend(pid) as ok from pg_stat_activity where query ilike 'LISTEN%' and datname = current_database()",
    );
    expect(killed.rows).toEqual([{ ok: true }]);
    const epoch = await startJob(ctx().database, id);
    await reportProgress(ctx().database, id, epoch, 1);
    await succeedJob(ctx().database, id, epoch, {});
    await w.done;
    expect(seqs(w.items)).toEqual([1, 2, 3, 4, 5]);
  });
});
