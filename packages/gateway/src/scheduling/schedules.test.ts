// Recurring schedules through the real gateway: a bad cron, zone, kind or input writes nothing;
// a schedule fires one job per tick with no gap and no duplicate, on one replica at a time and
// exactly once per tick even when two firers race; missed ticks after downtime follow the policy
// (skip: the latest only; catch_up: each, up to the limit); paused schedules fire nothing and owe
// nothing on resume; another tenant's schedule reads as missing.
import { EMBEDDED_CAPABILITIES } from '@sluice/contracts';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NODE_ACCEPT_CRYPTO } from '../accept/input-hash.js';
import { createAcceptor } from '../accept/accept.js';
import { createDispatchPath } from '../dispatch/dispatch.js';
import { createMetrics } from '../observability/metrics.js';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import { createServedVersionCheck } from '../dispatch/served-versions.js';
import { errorOf, startGateway, testJobs, type GatewayFixture } from '../testing/fixture.js';
import { createScheduleFirer, scheduleTickKey } from './fire-schedules.js';

const codeOf = (e: { data: unknown }) => (e.data as { code?: string } | undefined)?.code;
const MINUTE = 60_000;

describeEachDialect('schedules', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), { scheduler: { maxSleepMs: 100 } });
  });
  afterAll(async () => {
    await f.close();
  });

  /** The jobs a schedule made, by tick (from their idempotency keys), oldest first. */
  const ticksOf = async (scheduleId: string): Promise<number[]> => {
    const rows = await ctx()
      .database.db.selectFrom('jobs')
      .select('idempotency_key')
      .where('idempotency_key', 'like', `schedule:${scheduleId}:%`)
      .orderBy('idempotency_key')
      .execute();
    return rows.map((r) => Date.parse(String(r.idempotency_key).split(':').slice(2).join(':')));
  };

  /** A gateway acceptor and firer of its own: a second replica, driven with a chosen clock. */
  const replica = () => {
    const database = ctx().database;
    const runtime = createEmbeddedDispatcher(database);
    const accept = createAcceptor({
      crypto: NODE_ACCEPT_CRYPTO,
      jobs: testJobs,
      database,
      dispatch: createDispatchPath(runtime, database, () => {}),
      served: createServedVersionCheck(runtime, 0),
      hub: f.gateway.hub,
      metrics: createMetrics({ processMetrics: false }),
      capabilities: EMBEDDED_CAPABILITIES,
    });
    return createScheduleFirer({ db: database.db, accept, onError: () => {} });
  };

  it('refuses a bad cron, zone, kind or input and writes nothing', async () => {
    const c = f.http(f.keyA);
    const before = await ctx().database.db.selectFrom('schedules').select('id').execute();
    const cases = [
      { kind: 'demo.echo', input: { text: 'x' }, cron: '61 * * * *' },
      { kind: 'demo.echo', input: { text: 'x' }, cron: '* * *  *' },
      { kind: 'demo.echo', input: { text: 'x' }, cron: '* * * * *', timezone: 'Mars/Base' },
      { kind: 'demo.nope', input: { text: 'x' }, cron: '* * * * *' },
      { kind: 'demo.echo', input: { text: 1 }, cron: '* * * * *' },
      { kind: 'demo.echo', input: { text: 'x' }, cron: '* * * * *', catchUpLimit: 0 },
    ];
    for (const input of cases) {
      const e = await errorOf(c.schedules.create.mutate(input as never));
      expect(codeOf(e), JSON.stringify(input)).toBe('BAD_REQUEST');
    }
    const after = await ctx().database.db.selectFrom('schedules').select('id').execute();
    expect(after).toEqual(before);
  });

  it('fires one job per tick, no gap and no duplicate, and counts them', async () => {
    const c = f.http(f.keyA);
    const s = await c.schedules.create.mutate({
      kind: 'demo.copy',
      input: { text: 'tick' },
      cron: '* * * * * *',
      name: 'every-second',
    });
    expect(s).toMatchObject({ paused: false, timezone: 'UTC', missed: 'skip', fired: 0 });
    expect(Date.parse(s.nextFireAt ?? '')).toBeGreaterThan(Date.parse(s.createdAt));
    await waitFor(async () => (await ticksOf(s.id)).length >= 3, {
      timeoutMs: 8000,
      message: 'three ticks fired',
    });
    await c.schedules.pause.mutate({ id: s.id });
    const ticks = await ticksOf(s.id);
    // Consecutive seconds: nothing skipped while the gateway ran, nothing fired twice.
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]! - ticks[i - 1]!).toBe(1000);
    expect(new Set(ticks).size).toBe(ticks.length);
    const view = await c.schedules.get.query({ id: s.id });
    expect(view.fired).toBe(ticks.length);
    expect(view.paused).toBe(true);
    expect(view.nextFireAt).toBeNull();
    const dup = await errorOf(
      c.schedules.create.mutate({
        kind: 'demo.copy',
        input: { text: 'again' },
        cron: '* * * * *',
        name: 'every-second',
      }),
    );
    expect(codeOf(dup)).toBe('CONFLICT');
  });

  it('after downtime: skip fires the latest missed tick only, catch_up each up to its limit; two racing firers make each tick once', async () => {
    const c = f.http(f.keyA);
    const make = (missed: 'skip' | 'catch_up') =>
      c.schedules.create.mutate({
        kind: 'demo.copy',
        input: { text: missed },
        cron: '*/1 * * * *',
        missed,
        catchUpLimit: 3,
        paused: true, // driven below with a chosen clock, not by the fixture's own scheduler
      });
    const [skip, catchUp] = [await make('skip'), await make('catch_up')];
    const now = Date.parse('2031-03-04T05:06:30.000Z');
    const tenMinutesAgo = new Date(Date.parse('2031-03-04T04:56:00.000Z')).toISOString();
    await ctx()
      .database.db.updateTable('schedules')
      .set({ paused: 0, next_fire_at: tenMinutesAgo })
      .where('id', 'in', [skip.id, catchUp.id])
      .execute();
    const [a, b] = [replica(), replica()];
    await Promise.all([a.fire(now), b.fire(now), a.fire(now)]);
    const [skipTicks, catchTicks] = [await ticksOf(skip.id), await ticksOf(catchUp.id)];
    expect(skipTicks).toEqual([Date.parse('2031-03-04T05:06:00.000Z')]);
    expect(catchTicks).toEqual([4, 5, 6].map((m) => Date.parse(`2031-03-04T05:0${m}:00.000Z`)));
    for (const id of [skip.id, catchUp.id]) {
      const row = await ctx()
        .database.db.selectFrom('schedules')
        .select(['next_fire_at', 'last_fire_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.next_fire_at).toBe('2031-03-04T05:07:00.000Z');
      expect(row.last_fire_at).toBe('2031-03-04T05:06:00.000Z');
    }
    expect(scheduleTickKey(skip.id, now)).toBe(`schedule:${skip.id}:2031-03-04T05:06:30.000Z`);
    await Promise.all([skip, catchUp].map((s) => c.schedules.delete.mutate({ id: s.id })));
  });

  it('a paused schedule fires nothing and owes nothing on resume; a time zone moves its ticks', async () => {
    const c = f.http(f.keyA);
    const s = await c.schedules.create.mutate({
      kind: 'demo.copy',
      input: { text: 'p' },
      cron: '0 9 * * *',
      timezone: 'Asia/Seoul',
      paused: true,
    });
    expect(s.nextFireAt).toBeNull();
    const resumed = await c.schedules.resume.mutate({ id: s.id });
    // 09:00 in Seoul is 00:00 UTC.
    expect(resumed.nextFireAt).toMatch(/T00:00:00\.000Z$/);
    expect(Date.parse(resumed.nextFireAt ?? '') - Date.now()).toBeLessThanOrEqual(24 * 60 * MINUTE);
    expect(await ticksOf(s.id)).toEqual([]);
  });

  it('another tenant’s schedule reads as missing; lists are per tenant', async () => {
    const mine = await f.http(f.keyA).schedules.create.mutate({
      kind: 'demo.copy',
      input: { text: 'mine' },
      cron: '0 0 1 1 *',
    });
    const other = f.http(f.keyB);
    // One call at a time: calls started together share one batch, whose refusals would reject
    // the later promises before anything awaits them (unhandled rejections).
    for (const call of [
      () => other.schedules.get.query({ id: mine.id }),
      () => other.schedules.pause.mutate({ id: mine.id }),
      () => other.schedules.resume.mutate({ id: mine.id }),
      () => other.schedules.delete.mutate({ id: mine.id }),
    ]) {
      expect(codeOf(await errorOf(call()))).toBe('NOT_FOUND');
    }
    expect((await other.schedules.list.query({})).items).toEqual([]);
    const own = await f.http(f.keyA).schedules.list.query({ limit: 100 });
    expect(own.items.map((s) => s.id)).toContain(mine.id);
    expect(await f.http(f.keyA).schedules.delete.mutate({ id: mine.id })).toEqual({
      id: mine.id,
      deleted: true,
    });
  });
});
