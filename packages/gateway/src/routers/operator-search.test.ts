// Catches a search that misses or leaks: tags and metadata given at submit are stored and found
// again (alone, together, with states, kinds, time ranges and error text), pages never repeat or
// skip a job, a bad label is refused naming its field with nothing written, a non-admin key
// cannot reach another tenant, and `jobs.detail` returns attempts, units, ledger and events.
import { recordCallIntent, recordCallOutcome, storeUnitResult } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deadLetterJob, startJob, succeedJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('operator search and detail', (ctx) => {
  let f: GatewayFixture;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    f = await startGateway(ctx());
    const c = f.http(f.keyA);
    const submit = async (name: string, tags: string[], metadata: Record<string, unknown>) => {
      ids[name] = (
        await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: name }, tags, metadata })
      ).id;
    };
    await submit('a', ['outage', 'eu'], { customer: 'c1', plan: 5 });
    await submit('b', ['outage'], { customer: 'c2', vip: true });
    await submit('c', ['eu'], { customer: 'c1' });
    await submit('d', [], {});
    await f.http(f.keyB).jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'other tenant' },
      tags: ['outage'],
      metadata: { customer: 'c1' },
    });
    await deadLetterJob(ctx().database, ids.b as string, 'PROVIDER_OUTAGE');
  });
  afterAll(async () => {
    await f.close();
  });

  const found = (page: { items: { id: string }[] }) => page.items.map((i) => i.id).sort();
  const of = (...names: string[]) => names.map((n) => ids[n] as string).sort();

  it('finds jobs by tags, metadata keys and values, states and error text', async () => {
    const c = f.http(f.keyA);
    expect(found(await c.jobs.search.query({ tags: ['outage'] }))).toEqual(of('a', 'b'));
    expect(found(await c.jobs.search.query({ tags: ['outage', 'eu'] }))).toEqual(of('a'));
    const c1 = { metadata: [{ key: 'customer', value: 'c1' }] };
    expect(found(await c.jobs.search.query(c1))).toEqual(of('a', 'c'));
    expect(found(await c.jobs.search.query({ metadata: [{ key: 'vip' }] }))).toEqual(of('b'));
    // Values that are not strings match by their JSON text.
    const five = { metadata: [{ key: 'plan', value: '5' }] };
    expect(found(await c.jobs.search.query(five))).toEqual(of('a'));
    const vip = { metadata: [{ key: 'vip', value: 'true' }] };
    expect(found(await c.jobs.search.query(vip))).toEqual(of('b'));
    const parked = { states: ['dead_lettered' as const], tags: ['outage'] };
    expect(found(await c.jobs.search.query(parked))).toEqual(of('b'));
    expect(found(await c.jobs.search.query({ errorText: 'OUTAGE' }))).toEqual(of('b'));
    expect(found(await c.jobs.search.query({ errorText: '100%_' }))).toEqual([]);
    const none = { kind: 'demo.copy', tags: ['outage'] };
    expect(found(await c.jobs.search.query(none))).toEqual([]);
    const item = (await c.jobs.search.query({ tags: ['eu'], metadata: [{ key: 'plan' }] }))
      .items[0];
    expect(item).toMatchObject({ id: ids.a, tags: ['outage', 'eu'], metadata: { plan: 5 } });
    expect(item).not.toHaveProperty('tenantId');
  });

  it('bounds time ranges and pages through results without repeats or gaps', async () => {
    const c = f.http(f.keyA);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(found(await c.jobs.search.query({ createdAfter: future }))).toEqual([]);
    const all = found(await c.jobs.search.query({ createdBefore: future, limit: 100 }));
    expect(all).toEqual(of('a', 'b', 'c', 'd'));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { id: string }[]; nextCursor: string | null } =
        await c.jobs.search.query({ limit: 1, cursor });
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(all);
    const tagged: string[] = [];
    cursor = null;
    do {
      const page: { items: { id: string }[]; nextCursor: string | null } =
        await c.jobs.search.query({ tags: ['eu'], limit: 1, cursor });
      tagged.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(tagged.sort()).toEqual(of('a', 'c'));
  });

  it('refuses bad labels naming the field, and writes nothing', async () => {
    const c = f.http(f.keyA);
    const before = await f.counts();
    const cases: [Record<string, unknown>, string][] = [
      [{ tags: ['ok', 'has space'] }, 'tags'],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
      [{ tags: ['x', 'x'] }, 'tags'],
      [{ metadata: { 'bad key': 1 } }, 'metadata'],
      [{ metadata: { big: 'x'.repeat(5000) } }, 'metadata'],
    ];
    for (const [extra, field] of cases) {
      const e = await errorOf(
        c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'bad' }, ...extra } as never),
      );
      expect(e.data).toMatchObject({ code: 'BAD_REQUEST' });
      const issues = (e.data as { issues?: { path: string }[] }).issues ?? [];
      expect(issues[0]?.path.split('.')[0]).toBe(field);
    }
    expect(await f.counts()).toEqual(before);
  });

  it('lets only an admin key name a tenant; `*` searches every tenant and shows each', async () => {
    const denied = await errorOf(f.http(f.keyA).jobs.search.query({ tenant: 'globex' }));
    expect(denied.data).toMatchObject({ code: 'FORBIDDEN' });
    expect(denied.message).toContain('tenant');
    const admin = f.http(f.adminKey);
    const every = await admin.jobs.search.query({ tenant: '*', tags: ['outage'] });
    expect(every.items.map((i) => i.tenantId).sort()).toEqual(['acme', 'acme', 'globex']);
    const globex = await admin.jobs.search.query({ tenant: 'globex' });
    expect(globex.items.map((i) => i.tenantId)).toEqual(['globex']);
  });

  it('jobs.detail returns attempts, units, the ledger with bills, and the events', async () => {
    const c = f.http(f.keyA);
    const { database } = ctx();
    const id = ids.c as string;
    const epoch = await startJob(database, id);
    const attemptId = (await c.jobs.get.query({ id })) && `att-${epoch}`;
    await storeUnitResult(database.db, {
      jobId: id,
      unitKey: 'unit:u0',
      result: { n: 1 },
      attemptId,
      epoch,
    });
    const call = await recordCallIntent(database.db, {
      jobId: id,
      unitKey: 'u0',
      callName: 'tts',
      attemptId,
      epoch,
      stage: 'execute',
      provider: 'fake',
      modality: 'audio',
      callClass: 'retry_safe',
      requestKey: 'key-u0',
    });
    if (!call) throw new Error('fenced');
    await recordCallOutcome(database.db, call.id, { outcome: 'succeeded', externalId: 'ext-1' });
    await recordCallIntent(database.db, {
      jobId: id,
      unitKey: 'u1',
      callName: 'tts',
      attemptId,
      epoch,
      stage: 'execute',
      provider: 'fake',
      modality: 'audio',
      callClass: 'fail_closed',
      outcome: 'refused',
    });
    await succeedJob(database, id, epoch, { text: 'done' });

    const d = await c.jobs.detail.query({ id });
    expect(d.job).toMatchObject({ id, state: 'succeeded', input: { text: 'c' }, tags: ['eu'] });
    expect(d.attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'succeeded', endedAt: expect.any(String) }),
    ]);
    expect(d.units).toEqual([
      expect.objectContaining({ step: 'unit:u0', unitKey: 'u0', result: { n: 1 }, epoch }),
    ]);
    expect(
      d.calls.map((x) => [x.unitKey, x.outcome, x.billed, x.idempotencyKey, x.externalId]),
    ).toEqual([
      ['u0', 'succeeded', true, 'key-u0', 'ext-1'],
      ['u1', 'refused', false, null, null],
    ]);
    expect(d.bills).toEqual({ calls: 2, billed: 1 });
    expect(d.events.map((e) => ('to' in e ? e.to : e.type))).toEqual([
      'accepted',
      'queued',
      'running',
      'succeeded',
    ]);
    expect(d.links).toEqual({ parent: null, children: [], waits: [] });
    const missing = await errorOf(f.http(f.keyB).jobs.detail.query({ id }));
    expect(missing.data).toMatchObject({ code: 'NOT_FOUND' });
  });
});
