// Events across gateway replicas through the events stream, against a private redis-server on
// both dialects: a watcher on gateway A sees what a worker published and what gateway B wrote,
// each event once; after a Redis restart watchers backfill the terminal event they would have
// missed; a blocked read on a half-open connection is torn down and reading resumes (F6).

import { appendAttemptEvents, type StoredEvent } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { faultProxy, startRedisServer, waitFor, type RedisServer } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { encodeStreamEvent } from '../events.js';
import {
  closeConnection,
  createBlockingConnection,
  createCommandConnection,
} from './redis-connection.js';
import { record } from '@sluice/gateway/conformance';
import {
  startStreamsGateway,
  transitionAndPublish,
  type StreamsGatewayFixture,
} from '../testing/gateway-fixture.js';
import { createStreamTailer } from './stream-tailer.js';

type Item = { id: string; data: { jobId: string; seq: number; type: string; to?: string } };
type Feed = { kind: string; event: { jobId: string; seq: number; type: string; to?: string } };
const seqs = (items: Item[]) => items.map((i) => i.data.seq);

describeEachDialect('events stream across gateways', (ctx) => {
  let redis: RedisServer;
  let a: StreamsGatewayFixture;
  let b: StreamsGatewayFixture;
  beforeAll(async () => {
    redis = await startRedisServer();
    a = await startStreamsGateway(ctx(), redis.url);
    b = await startStreamsGateway(ctx(), redis.url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  const submitVia = async (f: StreamsGatewayFixture, text: string) =>
    (await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text } })).id;
  const publish = (id: string, req: Parameters<typeof transitionAndPublish>[3]) =>
    transitionAndPublish(ctx().database, a.rt.redis, a.rt.keys, { ...req, id });

  it('a watcher on A sees what a worker published for a job submitted through B', async () => {
    const id = await submitVia(b, 'x');
    const { client } = a.ws(a.keyA);
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    await w.until(2);
    const start = await publish(id, { id, event: 'start', leaseMs: 60_000 });
    const progress = await ctx().database.transaction((tx) =>
      appendAttemptEvents(tx, id, 1, [{ type: 'progress', data: { done: 1 } }]),
    );
    await a.rt.redis.xadd(
      a.rt.keys.events,
      '*',
      ...encodeStreamEvent((progress as StoredEvent[])[0] as StoredEvent),
    );
    await publish(id, { id, event: 'succeed', epoch: 1, output: { text: 'X' } });
    await w.done;
    expect(start.event.seq).toBe(3);
    expect(seqs(w.items)).toEqual([1, 2, 3, 4, 5]);
    expect(w.items.at(-1)?.data).toMatchObject({ type: 'state', to: 'succeeded' });
  });

  it('a cancel through B reaches a watcher on A, and A’s feed sees each event once', async () => {
    const { client } = a.ws(a.keyA);
    const feed = record<Feed>((h) => client.jobs.watchAll.subscribe({}, h));
    await waitFor(() => a.gateway.hub.listenerCount() >= 1);
    const id = await submitVia(a, 'c');
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    await w.until(2);
    expect(await b.http(b.keyA).jobs.cancel.mutate({ id })).toEqual({ id, state: 'cancelled' });
    await w.done;
    expect(w.items.map((i) => i.data.to)).toEqual(['accepted', 'queued', 'cancelled']);
    // A published its own two events locally AND relayed them; B relayed the cancel.
    await feed.until(3);
    await new Promise((r) => setTimeout(r, 300));
    const mine = feed.items.filter((i) => i.event.jobId === id);
    expect(mine.map((i) => i.event.seq)).toEqual([1, 2, 3]);
    feed.stop();
  });

  it('watchers backfill the terminal event they missed while Redis restarted', async () => {
    const id = await submitVia(b, 'r');
    await publish(id, { id, event: 'start', leaseMs: 60_000 });
    const { client } = a.ws(a.keyA);
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    await w.until(3);
    const resyncs = a.rt.tailer.stats.resyncs;
    await redis.kill();
    // The worker commits its outcome while the events stream is gone: nothing is published.
    await transitionAndPublish(ctx().database, a.rt.redis, a.rt.keys, {
      id,
      event: 'succeed',
      epoch: 1,
      output: { text: 'R' },
    }).catch(() => {});
    const t0 = Date.now();
    await redis.restart();
    await w.done;
    console.log(
      `${ctx().dialect}: terminal event backfilled ${Date.now() - t0} ms after Redis restarted`,
    );
    expect(seqs(w.items)).toEqual([1, 2, 3, 4]);
    expect(a.rt.tailer.stats.resyncs).toBeGreaterThan(resyncs);
  });
});

it('tears down a blocked read on a half-open connection and resumes reading (F6)', async () => {
  await using redis = await startRedisServer();
  await using proxy = await faultProxy({ host: redis.host, port: redis.port });
  const reader = createBlockingConnection(proxy.url('redis'));
  const writer = createCommandConnection(redis.url);
  const delivered: StoredEvent[] = [];
  let resyncs = 0;
  const tailer = createStreamTailer({
    reader,
    writer,
    key: 'sluice:events',
    blockMs: 200,
    watchdogMarginMs: 300,
  });
  await tailer.start({
    deliver: (e) => delivered.push(...e),
    resync: () => resyncs++,
    wanted: () => true,
    known: () => false,
  });
  expect(resyncs).toBe(1);
  proxy.blackhole();
  await waitFor(() => tailer.stats.watchdogs >= 1, { timeoutMs: 5000 });
  const healedAt = Date.now();
  proxy.heal();
  await waitFor(() => resyncs >= 2, { timeoutMs: 10_000 });
  const resumeMs = Date.now() - healedAt;
  const event = {
    jobId: 'v1-abc',
    seq: 2,
    at: new Date().toISOString(),
    type: 'state' as const,
    from: 'accepted' as const,
    to: 'queued' as const,
    attempt: 0,
  };
  tailer.relay([{ id: 7, tenantId: 'acme', kind: 'demo.echo', event }]);
  await waitFor(() => delivered.length === 1, { timeoutMs: 5000 });
  console.log(
    `blackhole: read resumed ${resumeMs} ms after the link healed (block 200 ms, margin 300 ms)`,
  );
  expect(delivered[0]).toMatchObject({ id: 0, tenantId: 'acme', kind: 'demo.echo', event });
  await tailer.close();
  await closeConnection(writer);
});
