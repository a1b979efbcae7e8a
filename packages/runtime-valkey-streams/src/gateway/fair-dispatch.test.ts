// Fairness across tenants on Valkey Streams (bounded-depth dispatch), on both dialects against a
// private redis-server: a job stream never holds more than `maxUndelivered` undelivered entries,
// the rest of a tenant's burst waits in the database, the fair feeder hands held jobs out
// round-robin across tenants as a consumer makes room, and no job is lost or dispatched twice.

import { decodePointer } from '@sluice/contracts';
import { parseXRead } from '../replies.js';
import { HELD_DUE_AT } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { startRedisServer, type RedisServer } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStreamsGateway, type StreamsGatewayFixture } from '../testing/gateway-fixture.js';

const BOUND = 5;

describeEachDialect('valkey-streams fair dispatch', (ctx) => {
  let redis: RedisServer;
  let f: StreamsGatewayFixture;
  beforeAll(async () => {
    redis = await startRedisServer();
    // The feeder is driven by the test (`feed()`), so every step is deterministic.
    f = await startStreamsGateway(ctx(), redis.url, {
      fairness: { maxUndelivered: BOUND, feedEveryMs: 3_600_000 },
    });
  });
  afterAll(async () => {
    await f?.close();
    await redis?.stop();
  });

  const stream = () => f.rt.keys.jobs('demo.echo', 'v1');
  const outbox = async () =>
    ctx().database.db.selectFrom('outbox').select(['job_id', 'due_at']).execute();
  const undelivered = async () => {
    const groups = (await f.rt.redis.xinfo('GROUPS', stream())) as unknown[][];
    const g = groups
      .map((x) => Object.fromEntries(chunk(x)))
      .find((x) => x.name === f.rt.keys.group);
    return Number(g?.lag);
  };
  /** Plays a worker: reads up to n new entries and acknowledges them; returns their tenants. */
  const consume = async (n: number) => {
    const reply = await f.rt.redis.xreadgroup(
      'GROUP',
      f.rt.keys.group,
      'probe',
      'COUNT',
      n,
      'STREAMS',
      stream(),
      '>',
    );
    const entries = parseXRead(reply).flatMap((s) => s.entries);
    if (entries.length > 0) {
      await f.rt.redis.xack(stream(), f.rt.keys.group, ...entries.map((e) => e.id));
    }
    return entries.map((e) => decodePointer(e.fields ?? []));
  };

  it('tenant_b_started_within_the_bound: a burst waits in the database; the feeder round-robins', async () => {
    // Catches a dispatcher that XADDs a whole burst (B's job would sit behind all of A's) and a
    // feeder that hands held jobs out oldest first rather than round-robin across tenants.
    const a = f.http(f.keyA);
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        a.jobs.submit.mutate({ kind: 'demo.echo', input: { text: `a${i}` } }),
      ),
    );
    expect(burst.every((r) => r.state === 'queued')).toBe(true);
    await expect.poll(() => f.rt.redis.xlen(stream())).toBe(BOUND);
    await expect
      .poll(async () => (await outbox()).filter((r) => r.due_at === HELD_DUE_AT).length)
      .toBe(30 - BOUND);
    const b = await f.http(f.keyB).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'b' } });
    expect(b.state).toBe('queued');
    expect(await f.rt.redis.xlen(stream())).toBe(BOUND); // B's job is held too
    // A worker takes what the stream holds; every time it made room, the feeder runs.
    const order: { jobId: string; tenantId: string }[] = [];
    for (let i = 0; i < 40 && order.length < 31; i++) {
      order.push(...(await consume(2)));
      expect(await undelivered()).toBeLessThanOrEqual(BOUND);
      await f.rt.feeder?.feed();
    }
    // The bound: behind the BOUND entries already in the stream, plus at most one job of every
    // other tenant with held jobs (A's first held one, older than B's).
    const bAt = order.findIndex((p) => p.jobId === b.id);
    expect(bAt).toBeGreaterThanOrEqual(0);
    expect(bAt).toBeLessThanOrEqual(BOUND + 1);
    // Nothing lost, nothing dispatched twice, nothing left held.
    const ids = order.map((p) => p.jobId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set([...burst.map((r) => r.id), b.id]));
    await expect.poll(async () => (await outbox()).length).toBe(0);
  });

  it('a job cancelled while held is never dispatched, and its held mark goes', async () => {
    const a = f.http(f.keyA);
    const first = await Promise.all(
      Array.from({ length: BOUND }, (_, i) =>
        a.jobs.submit.mutate({ kind: 'demo.echo', input: { text: `f${i}` } }),
      ),
    );
    const held = await a.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'held' } });
    await expect
      .poll(async () => (await outbox()).map((r) => [r.job_id, r.due_at]))
      .toEqual([[held.id, HELD_DUE_AT]]);
    await a.jobs.cancel.mutate({ id: held.id });
    const got = await consume(BOUND);
    expect(new Set(got.map((p) => p.jobId))).toEqual(new Set(first.map((r) => r.id)));
    await f.rt.feeder?.feed();
    expect(await consume(BOUND)).toEqual([]);
    expect(await outbox()).toEqual([]);
  });
});

function chunk(flat: unknown[]): [unknown, unknown][] {
  const out: [unknown, unknown][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}
