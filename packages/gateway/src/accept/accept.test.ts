import { getJobById, heartbeatServed, listEvents, removeServed } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson, inputHash } from './input-hash.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

it('hashes inputs canonically: key order does not matter, values do', () => {
  expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } })).toBe(
    '{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}',
  );
  expect(inputHash({ a: 1, b: 2 }, [])).toBe(inputHash({ b: 2, a: 1 }, []));
  expect(inputHash({ a: 1 }, [])).not.toBe(inputHash({ a: 2 }, []));
  expect(inputHash({ a: 1 }, [])).not.toBe(inputHash({ a: 1 }, ['f_x']));
});

describeEachDialect('accept path', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('accepts a job: queued, with its queue row and events 1 and 2, in one answer', async () => {
    const r = await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'hi' } });
    expect(r).toEqual({
      id: expect.stringMatching(/^v1-[a-z2-7]{26}$/),
      state: 'queued',
      isDuplicate: false,
    });
    const row = await getJobById(f.db.database.db, r.id);
    expect(row).toMatchObject({ tenantId: 'acme', kind: 'demo.echo', state: 'queued', lastSeq: 2 });
    // The embedded queue is the jobs table: queued and due now is claimable.
    expect(row?.runAfter).toBeNull();
    const events = await listEvents(f.db.database.db, r.id);
    expect(events.map((e) => [e.seq, e.type, 'to' in e ? e.to : null])).toEqual([
      [1, 'state', 'accepted'],
      [2, 'state', 'queued'],
    ]);
  });

  it('answers a repeated key with the same job, and a changed input with CONFLICT', async () => {
    const client = f.http(f.keyA);
    const first = await client.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'same' },
      idempotencyKey: 'order-1',
    });
    const again = await client.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'same' },
      idempotencyKey: 'order-1',
    });
    expect(again).toEqual({ id: first.id, state: 'queued', isDuplicate: true });
    const before = await f.counts();
    const conflict = await errorOf(
      client.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: 'other' },
        idempotencyKey: 'order-1',
      }),
    );
    expect(conflict.data).toMatchObject({
      code: 'CONFLICT',
      httpStatus: 409,
      sluiceCode: 'CONFLICT',
    });
    expect(await f.counts()).toEqual(before);
    // The same key for another kind with an identical input is a conflict too.
    const k2 = await errorOf(
      client.jobs.submit.mutate({
        kind: 'demo.copy',
        input: { text: 'same' },
        idempotencyKey: 'order-1',
      }),
    );
    expect(k2.data).toMatchObject({ code: 'CONFLICT' });
    // The same key in another tenant is another job.
    const other = await f.http(f.keyB).jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'same' },
      idempotencyKey: 'order-1',
    });
    expect(other.id).not.toBe(first.id);
    expect(other.isDuplicate).toBe(false);
  });

  it('creates one job for concurrent submits with one key', async () => {
    const client = f.http(f.keyA);
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        client.jobs.submit.mutate({
          kind: 'demo.echo',
          input: { text: 'race' },
          idempotencyKey: 'race-1',
        }),
      ),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results.filter((r) => !r.isDuplicate)).toHaveLength(1);
  });

  it('rejects bad input with BAD_REQUEST and its issues, writing nothing', async () => {
    const client = f.http(f.keyA);
    const before = await f.counts();
    const cases: unknown[] = [
      { kind: 'demo.echo', input: { text: 5 } },
      { kind: 'demo.echo', input: { text: 'x'.repeat(1001) } },
      { kind: 'demo.echo', input: { text: 'a', extra: true } },
      { kind: 'demo.echo', input: {} },
      { kind: 'demo.nope', input: { text: 'a' } },
      { kind: 'demo.echo', input: { text: 'a' }, tenantId: 'globex' },
      { kind: 'demo.echo', input: { text: 'a' }, idempotencyKey: '' },
      { kind: 'demo.echo', input: { text: 'a' }, fileIds: ['../etc/passwd'] },
      {
        kind: 'demo.echo',
        input: { text: 'a' },
        fileIds: Array.from({ length: 101 }, () => 'f_aaaaaaaaaaaaaaaaaaaaaaaaaa'),
      },
      null,
    ];
    for (const input of cases) {
      const e = await errorOf(client.jobs.submit.mutate(input as never));
      expect(e.data, JSON.stringify(input)).toMatchObject({
        code: 'BAD_REQUEST',
        httpStatus: 400,
        sluiceCode: 'BAD_REQUEST',
      });
      // The first issue's field and rule ride in the message too.
      expect(e.message).toMatch(/^Invalid input: \S+: .+/);
      expect((e.data as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
      expect(JSON.stringify(e.shape)).not.toMatch(/stack|at .*\.ts/);
    }
    // A JSON `__proto__` key is an own key after JSON.parse: refused, prototype untouched.
    const res = await fetch(`${f.url}/trpc/jobs.submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}`, 'content-type': 'application/json' },
      body: '{"kind":"demo.echo","input":{"text":"a","__proto__":{"polluted":true}}}',
    });
    expect(res.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await f.counts()).toEqual(before);
  });

  it('refuses a body over the request limit before parsing it', async () => {
    const before = await f.counts();
    const res = await fetch(`${f.url}/trpc/jobs.submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'demo.echo', input: { text: 'x'.repeat(2 * 1024 * 1024) } }),
    });
    expect(res.status).toBe(413);
    expect(await f.counts()).toEqual(before);
  });

  it('dead-letters a job whose version no live worker serves, and never reroutes it', async () => {
    const db = f.db.database.db;
    await heartbeatServed(db, 'w-v2-only', [{ kind: 'demo.echo', version: 'v2' }], 60_000);
    try {
      const r = await f
        .http(f.keyA)
        .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' } });
      expect(r).toMatchObject({ state: 'dead_lettered', isDuplicate: false });
      expect(r.id.startsWith('v1-')).toBe(true);
      const row = await getJobById(db, r.id);
      expect(row).toMatchObject({ state: 'dead_lettered', reason: 'VERSION_NOT_ROUTABLE' });
      const events = await listEvents(db, r.id);
      expect(events[1]).toMatchObject({ type: 'dead_letter', reason: 'VERSION_NOT_ROUTABLE' });
      expect((events[1] as { detail?: string }).detail).toMatch(/no handler registered for v1/);

      // Once a worker serves v1 the next job is queued.
      await heartbeatServed(db, 'w-v1', [{ kind: 'demo.echo', version: 'v1' }], 60_000);
      const ok = await f
        .http(f.keyA)
        .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' } });
      expect(ok.state).toBe('queued');
    } finally {
      await removeServed(db, 'w-v2-only');
      await removeServed(db, 'w-v1');
    }
  });

  it('chooses the version by rollout, with a per-kind override', async () => {
    const current = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.rollout', input: { n: 1 } });
    expect(current.id.startsWith('v1-')).toBe(true);
    const g = await startGateway(f.db, { rollout: { 'demo.rollout': 100 } });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await g
          .http(g.keyA)
          .jobs.submit.mutate({ kind: 'demo.rollout', input: { n: i } });
        expect(r.id.startsWith('v2-')).toBe(true);
      }
    } finally {
      await g.close();
    }
  });
});
