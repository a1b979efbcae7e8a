// The reconciler against a private redis-server, on both dialects: one active instance across
// replicas with failover; after Redis loses its data every non-terminal job is in a stream again
// (none lost, none finished re-run); the safety sweep finds jobs whose entry vanished; outbox
// rows of accepted jobs are queued and dispatched.

import { formatJobId } from '@sluice/contracts';
import {
  addToOutbox,
  dueOutbox,
  getJobById,
  insertJob,
  transitionJob,
  type StoredEvent,
} from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { pingRedis, sleep, startRedisServer, waitFor, type RedisServer } from '@sluice/testkit';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createStreamsDataLossDetector } from './data-loss-detector.js';
import {
  startStreamsGateway,
  streamJobIds,
  type StreamsGatewayFixture,
} from '../testing/gateway-fixture.js';
import { createReconciler, type Reconciler, type ReconcilerOptions } from '@sluice/gateway';

describeEachDialect('reconciler', (ctx) => {
  let redis: RedisServer;
  let f: StreamsGatewayFixture;
  beforeAll(async () => {
    redis = await startRedisServer();
    f = await startStreamsGateway(ctx(), redis.url);
  });
  afterAll(async () => {
    await f?.close();
    await redis?.stop();
  });

  const db = () => ctx().database.db;
  // Closed after each test, so a failed one cannot keep the lock from the next.
  const made: Reconciler[] = [];
  afterEach(async () => {
    for (const r of made.splice(0)) await r.close();
  });
  const make = (o: Partial<ReconcilerOptions> = {}) =>
    track(
      createReconciler({
        database: ctx().database,
        runtime: f.rt.dispatcher,
        loss: createStreamsDataLossDetector(f.rt.redis, f.rt.keys, f.rt.dispatcher.knownStreams),
        sweepEveryMs: 3_600_000,
        onError: (e) => console.error('reconciler', e),
        ...o,
      }),
    );
  const track = (r: Reconciler) => (made.push(r), r);
  const submit = async (text: string) =>
    (await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text } })).id;
  const entries = () => streamJobIds(f.rt.redis, f.rt.keys, 'demo.echo');
  const move = async (id: string, event: 'start' | 'succeed' | 'cancel', leaseMs?: number) => {
    const r = await ctx().database.transaction((tx) => transitionJob(tx, { id, event, leaseMs }));
    if (!r.ok) throw new Error(`cannot ${event} ${id}`);
  };

  it('runs one active instance across replicas and fails over when the holder stops', async () => {
    const a = make({ owner: 'gw-a', lockTtlMs: 500 });
    const b = make({ owner: 'gw-b', lockTtlMs: 500 });
    await a.tick();
    await b.tick();
    expect([a.isActive(), b.isActive()]).toEqual([true, false]);
    expect(b.stats).toMatchObject({ ticks: 1, runs: 0 });
    // A clean stop releases the lock: the other replica takes over on its next tick.
    await a.close();
    await b.tick();
    expect(b.isActive()).toBe(true);
    // A holder that dies keeps the lock until its lease runs out, then loses it.
    const c = make({ owner: 'gw-c', lockTtlMs: 500 });
    await c.tick();
    expect(c.isActive()).toBe(false);
    await sleep(600);
    await c.tick();
    expect(c.isActive()).toBe(true);
    await b.tick();
    expect(b.isActive()).toBe(false);
    await c.close();
    await b.close();
  });

  it('re-dispatches every non-terminal job after Redis lost its data, and nothing finished', async () => {
    const r = make({ owner: 'gw-loss' });
    // (On first contact with a server the marker is missing too: everything non-terminal goes
    // out once more, which is harmless. An earlier test of this suite made that contact.)
    await r.tick();
    expect(r.isActive()).toBe(true);
    const losses = r.stats.lossesDetected;
    const queued = [await submit('q1'), await submit('q2')];
    const [held, expired, done, cancelled] = [
      await submit('held'),
      await submit('expired'),
      await submit('done'),
      await submit('cancelled'),
    ] as [string, string, string, string];
    await move(held, 'start', 60_000);
    await move(expired, 'start', 1);
    await move(done, 'start', 60_000);
    await move(done, 'succeed');
    await move(cancelled, 'cancel');
    await r.tick();
    expect(r.stats.lossesDetected).toBe(losses);

    await redis.restart();
    expect(await entries()).toEqual([]);
    await waitFor(() => pingRedis(redis.port));
    const t0 = Date.now();
    await waitFor(async () => (await r.tick(), r.stats.lossesDetected === losses + 1), {
      intervalMs: 20,
    });
    const ids = await entries();
    console.log(
      `${ctx().dialect}: re-dispatched ${ids.length} jobs ${Date.now() - t0} ms after Redis was back`,
    );
    for (const id of [...queued, held, expired])
      expect(ids.filter((x) => x === id)).toHaveLength(1);
    expect(ids).not.toContain(done);
    expect(ids).not.toContain(cancelled);
    // The group exists at 0 before the entries: a worker that recreates it finds them all.
    const read = await f.rt.redis.xreadgroup(
      'GROUP',
      f.rt.keys.group,
      'c1',
      'COUNT',
      1000,
      'STREAMS',
      f.rt.keys.jobs('demo.echo', 'v1'),
      '>',
    );
    expect(JSON.stringify(read)).toContain(expired);
    // The marker is back: the next pass finds no loss.
    await r.tick();
    expect(r.stats.lossesDetected).toBe(losses + 1);
  });

  it('sweeps jobs whose entry vanished: quiet queued ones and running ones with a long-passed lease', async () => {
    // Margins far above a loaded CI's pauses: `fresh` must stay younger than quietMs until the tick.
    const r = make({ owner: 'gw-sweep', sweepEveryMs: 0, quietMs: 30_000, leasePassedMs: 30_000 });
    await r.tick();
    const [quiet, fresh, stuck] = [
      await submit('quiet'),
      await submit('fresh'),
      await submit('stuck'),
    ];
    await move(stuck, 'start', 1);
    // Their entries are gone (trimmed), and two of them have not moved for a while.
    await f.rt.redis.xtrim(f.rt.keys.jobs('demo.echo', 'v1'), 'MAXLEN', 0);
    const old = new Date(Date.now() - 120_000).toISOString();
    await db().updateTable('jobs').set({ updated_at: old }).where('id', '=', quiet).execute();
    await db().updateTable('jobs').set({ lease_until: old }).where('id', '=', stuck).execute();
    await r.tick();
    const ids = await entries();
    expect(ids).toContain(quiet);
    expect(ids).toContain(stuck);
    expect(ids).not.toContain(fresh);
  });

  it('queues and dispatches an accepted job left in the outbox, telling the hub', async () => {
    const events: StoredEvent[] = [];
    const r = make({ owner: 'gw-outbox', outboxGraceMs: 0, onEvents: (e) => events.push(...e) });
    const id = formatJobId('v1');
    await ctx().database.transaction(async (tx) => {
      await insertJob(tx, {
        id,
        tenantId: 'acme',
        kind: 'demo.echo',
        version: 'v1',
        input: { text: 'a' },
        inputHash: 'h',
        maxAttempts: 3,
      });
      await addToOutbox(tx, [id]);
    });
    await r.tick();
    expect((await getJobById(db(), id))?.state).toBe('queued');
    expect(events.map((e) => [e.event.jobId, 'to' in e.event ? e.event.to : ''])).toEqual([
      [id, 'queued'],
    ]);
    expect(await entries()).toContain(id);
    expect(await dueOutbox(db(), '9999')).toEqual([]);
  });
});
