// The Streams dispatch half against a private redis-server, on both dialects: pointers land in
// the stream of their kind and version with the group already there (a submit's carrying the row
// it wrote), concurrent submits share
// few pipelines, a failed XADD leaves the outbox row that the reconciler dispatches, requeue goes
// through the same path, and served versions come from the heartbeat ZSET.

import { decodePointer, type RuntimeDispatcher } from '@sluice/contracts';
import { PRIORITY_BANDS } from '../keys.js';
import { parseXRead } from '../replies.js';
import { dueOutbox, getJobById, listEvents, type Db } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { startRedisServer, type RedisServer } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReconciler } from '@sluice/gateway';
import { deadLetterJob } from '@sluice/gateway/conformance';
import { createStreamsDataLossDetector } from './data-loss-detector.js';
import {
  startStreamsGateway,
  streamJobIds,
  type StreamsGatewayFixture,
} from '../testing/gateway-fixture.js';

describeEachDialect('valkey-streams dispatch', (ctx) => {
  let redis: RedisServer;
  let f: StreamsGatewayFixture;
  const failNext = { count: 0 };
  const batches = { dispatch: 0, outboxDeletes: 0 };
  beforeAll(async () => {
    redis = await startRedisServer();
    // A runtime that fails its next N dispatches, like a Redis outage right after commit.
    const flaky = (real: RuntimeDispatcher<Db>): RuntimeDispatcher<Db> => ({
      ...real,
      dispatch: async (pointers) => {
        if (failNext.count > 0) {
          failNext.count--;
          throw new Error('XADD failed (simulated)');
        }
        return real.dispatch(pointers);
      },
    });
    // Nothing consumes here: a depth bound far above what the suite dispatches (fair-dispatch.test.ts
    // covers the bound), so no job is held.
    f = await startStreamsGateway(
      ctx(),
      redis.url,
      { fairness: { maxUndelivered: 100_000 } },
      (rt) => ({
        runtime: flaky(rt.dispatcher),
        dispatchBatch: {
          onBatch: (b) => (b.kind === 'dispatch' ? batches.dispatch++ : batches.outboxDeletes++),
        },
      }),
    );
  });
  afterAll(async () => {
    await f?.close();
    await redis?.stop();
  });

  const submit = async (text = 's') =>
    f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text } });

  it('XADDs the pointer to its kind/version stream, readable by the group at once', async () => {
    const r = await submit();
    expect(r.state).toBe('queued');
    const keys = f.rt.keys;
    const read = parseXRead(
      await f.rt.redis.xreadgroup(
        'GROUP',
        keys.group,
        'probe',
        'COUNT',
        100,
        'STREAMS',
        keys.jobs('demo.echo', 'v1'),
        '>',
      ),
    );
    const pointers = read.flatMap((s) => s.entries.map((e) => decodePointer(e.fields ?? [])));
    // The submit's pointer carries the row as the accept wrote it: a worker starts its first
    // delivery from it, fenced on exactly this epoch and last_seq, so each must match the row.
    const row = await getJobById(ctx().database.db, r.id);
    expect(pointers).toContainEqual({
      jobId: r.id,
      kind: 'demo.echo',
      version: 'v1',
      tenantId: 'acme',
      snapshot: {
        epoch: row?.epoch,
        lastSeq: row?.lastSeq,
        attempts: row?.attempts,
        maxAttempts: row?.maxAttempts,
        createdAt: row?.createdAt,
        ...(row?.traceContext ? { traceContext: row.traceContext } : {}),
        ...(row?.apiKeyId ? { apiKeyId: row.apiKeyId } : {}),
        inputJson: JSON.stringify(row?.input),
      },
    });
    expect([row?.state, row?.epoch, row?.lastSeq]).toEqual(['queued', 0, 2]);
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).toEqual([]);
    const events = await listEvents(ctx().database.db, r.id);
    expect(events.map((e) => ('to' in e ? e.to : e.type))).toEqual(['accepted', 'queued']);
  });

  it('a delayed job enters its stream only when due, once, after its scheduled → queued move', async () => {
    const { id, state } = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'later' }, delayMs: 600 });
    expect(state).toBe('scheduled');
    const runAt = Date.parse((await getJobById(ctx().database.db, id))?.runAfter ?? '');
    await new Promise((r) => setTimeout(r, 300));
    expect(await streamJobIds(f.rt.redis, f.rt.keys, 'demo.echo')).not.toContain(id);
    expect(await dueOutbox(ctx().database.db, '9999')).not.toContain(id);
    await expect
      .poll(
        async () =>
          (await streamJobIds(f.rt.redis, f.rt.keys, 'demo.echo')).filter((j) => j === id),
        {
          timeout: 5000,
        },
      )
      .toEqual([id]);
    const events = await listEvents(ctx().database.db, id);
    expect(events.map((e) => ('to' in e ? e.to : e.type))).toEqual([
      'accepted',
      'scheduled',
      'queued',
    ]);
    const queuedAt = Date.parse((await getJobById(ctx().database.db, id))?.updatedAt ?? '');
    expect(queuedAt).toBeGreaterThanOrEqual(runAt);
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).not.toContain(id);
  });

  it('coalesces concurrent submits into few pipelines, every job queued with one entry', async () => {
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).toEqual([]);
    const before = { ...f.rt.dispatcher.stats, ...batches };
    const n = 200;
    // One client, 50 calls at a time (the gateway's batch cap): as a busy app server submits.
    const client = f.http(f.keyA);
    const results: { id: string; state: string }[] = [];
    let started = 0;
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (started < n) {
          const text = `c${started++}`;
          results.push(await client.jobs.submit.mutate({ kind: 'demo.echo', input: { text } }));
        }
      }),
    );
    const elapsed = Date.now() - t0;
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).toEqual([]);
    const pipelines = f.rt.dispatcher.stats.pipelines - before.pipelines;
    const deletes = batches.outboxDeletes - before.outboxDeletes;
    console.log(
      `${ctx().dialect}: ${n} submits, ${pipelines} pipelines, ${deletes} outbox deletes, ${elapsed} ms`,
    );
    expect(f.rt.dispatcher.stats.entries - before.entries).toBe(n);
    expect(batches.dispatch - before.dispatch).toBe(pipelines);
    // The outbox rows go in one transaction per 100 ms window, not one per submit.
    expect(deletes).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2);
    expect(deletes).toBeLessThan(n / 2);
    // SQLite commits one at a time, so the dispatches of a burst queue up behind each other and
    // share pipelines; PostgreSQL commits trickle in concurrently and coalesce less (Redis takes
    // a pipeline per commit easily: what costs is the database, and its deletes are batched).
    if (ctx().dialect === 'sqlite') expect(pipelines).toBeLessThan(n / 4);
    else expect(pipelines).toBeLessThanOrEqual(n);
    expect(results.every((r) => r.state === 'queued')).toBe(true);
    const ids = await streamJobIds(f.rt.redis, f.rt.keys, 'demo.echo');
    for (const r of results) expect(ids.filter((id) => id === r.id)).toHaveLength(1);
  });

  it('leaves the outbox row when XADD fails after commit; the reconciler dispatches it', async () => {
    failNext.count = 1;
    const r = await submit('lost');
    expect(r.state).toBe('queued');
    expect((await getJobById(ctx().database.db, r.id))?.state).toBe('queued');
    expect(await dueOutbox(ctx().database.db, '9999')).toEqual([r.id]);
    expect(await streamJobIds(f.rt.redis, f.rt.keys, 'demo.echo')).not.toContain(r.id);

    const reconciler = createReconciler({
      database: ctx().database,
      runtime: f.rt.dispatcher,
      outboxGraceMs: 0,
      sweepEveryMs: 3_600_000,
    });
    // The first pass also sweeps: nothing in this suite is old enough to be swept.
    await reconciler.tick();
    await reconciler.close();
    expect(reconciler.stats).toMatchObject({ runs: 1, outboxDispatched: 1, errors: 0 });
    expect(
      (await streamJobIds(f.rt.redis, f.rt.keys, 'demo.echo')).filter((id) => id === r.id),
    ).toHaveLength(1);
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).toEqual([]);
  });

  it('every dispatch path writes to the stream of the job priority band', async () => {
    // Catches a path that builds its pointer without the priority (it would land in normal).
    const c = f.http(f.keyA);
    const bandOf = async (id: string) => {
      const found: string[] = [];
      for (const band of PRIORITY_BANDS) {
        const ids = await streamJobIds(f.rt.redis, f.rt.keys, 'demo.echo', 'v1', band);
        if (ids.includes(id)) found.push(band);
      }
      return found;
    };
    // The accept path.
    const urgent = await c.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'u' },
      priority: 6,
    });
    expect(await bandOf(urgent.id)).toEqual(['high']);
    // The reconciler's outbox pass (the post-commit XADD failed).
    failNext.count = 1;
    const late = await c.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'l' },
      priority: -4,
    });
    expect(await bandOf(late.id)).toEqual([]);
    const reconciler = createReconciler({
      database: ctx().database,
      runtime: f.rt.dispatcher,
      outboxGraceMs: 0,
      sweepEveryMs: 3_600_000,
      loss: createStreamsDataLossDetector(f.rt.redis, f.rt.keys, f.rt.dispatcher.knownStreams),
    });
    await reconciler.tick();
    expect(await bandOf(late.id)).toEqual(['low']);
    // The due-job scheduler.
    const later = await c.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'd' },
      priority: 3,
      delayMs: 200,
    });
    await expect.poll(() => bandOf(later.id), { timeout: 5000 }).toEqual(['high']);
    // A dead-letter requeue.
    const dl = await c.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'q' },
      priority: -1,
    });
    await deadLetterJob(ctx().database, dl.id, 'MAX_ATTEMPTS');
    await c.deadLetters.requeue.mutate({ id: dl.id });
    expect(await bandOf(dl.id)).toEqual(['low']);
    // The full re-dispatch after a data loss (the high band's stream vanished).
    await f.rt.redis.del(f.rt.keys.jobs('demo.echo', 'v1', 'high'));
    await reconciler.tick();
    await reconciler.close();
    expect(await bandOf(urgent.id)).toEqual(['high']);
    expect(await bandOf(later.id)).toEqual(['high']);
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).toEqual([]);
  });

  it('requeues a dead-lettered job with a fresh budget, a new entry, and its reason in history', async () => {
    const { id } = await submit('dlq');
    await deadLetterJob(ctx().database, id, 'MAX_ATTEMPTS');
    expect(await f.http(f.keyA).deadLetters.list.query({ limit: 50 })).toMatchObject({
      items: expect.arrayContaining([expect.objectContaining({ id, state: 'dead_lettered' })]),
    });
    expect(await f.http(f.keyA).deadLetters.requeue.mutate({ id })).toEqual({
      id,
      state: 'queued',
    });
    const job = await getJobById(ctx().database.db, id);
    expect(job).toMatchObject({ state: 'queued', attempts: 0, reason: null });
    expect(
      (await streamJobIds(f.rt.redis, f.rt.keys, 'demo.echo')).filter((x) => x === id),
    ).toHaveLength(2);
    const history = await listEvents(ctx().database.db, id);
    expect(history.find((e) => e.type === 'dead_letter')).toMatchObject({ reason: 'MAX_ATTEMPTS' });
    expect(history.at(-1)).toMatchObject({ type: 'state', from: 'dead_lettered', to: 'queued' });
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).toEqual([]);
  });

  it('reads served versions from the heartbeat ZSET and dead-letters an unserved version', async () => {
    const key = f.rt.keys.served('demo.rollout');
    const now = Date.now();
    await f.rt.redis.zadd(key, now + 60_000, 'v2', now - 1, 'v1');
    expect(await f.rt.dispatcher.servedVersions?.('demo.rollout')).toEqual(['v2']);
    // demo.rollout's current version v1 has no live worker (its heartbeat expired).
    const r = await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.rollout', input: { n: 1 } });
    expect(r.state).toBe('dead_lettered');
    expect((await getJobById(ctx().database.db, r.id))?.reason).toBe('VERSION_NOT_ROUTABLE');
    await f.rt.redis.del(key);
    expect(await f.rt.dispatcher.servedVersions?.('demo.rollout')).toEqual([]);
  });

  it('is ready while Redis answers, unready while it is down, and exposes stream figures', async () => {
    expect((await fetch(`${f.url}/readyz`)).status).toBe(200);
    const metrics = await f.metricsText();
    expect(metrics).toMatch(/sluice_stream_length\{stream="sluice:jobs:\{demo.echo:v1\}"\} \d+/);
    expect(metrics).toMatch(/sluice_stream_pending\{stream="sluice:jobs:\{demo.echo:v1\}"\} \d+/);
    expect(metrics).toMatch(
      /sluice_stream_consumer_idle_seconds\{stream="sluice:jobs:\{demo.echo:v1\}",consumer="probe"\}/,
    );
    expect(metrics).toContain('sluice_runtime_metrics_up 1');
    expect(metrics).toContain('sluice_outbox_depth 0');
    expect(metrics).toMatch(/sluice_jobs\{state="queued"\} \d+/);
    await redis.kill();
    const down = await fetch(`${f.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.text()).toBe('redis unavailable');
    expect(await f.metricsText()).toContain('sluice_runtime_metrics_up 0');
    await redis.restart();
    await expect
      .poll(async () => (await fetch(`${f.url}/readyz`)).status, { timeout: 10_000 })
      .toBe(200);
  });
});
