// Priorities at the gateway: a submit's priority (or the kind's default) is stored and shown; a
// value out of range is refused; a runtime that cannot order by priority refuses a non-zero one
// and writes nothing, and still takes priority 0.
import { EMBEDDED_CAPABILITIES } from '@sluice/contracts';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

const codeOf = (e: { data: unknown }) => (e.data as { code?: string } | undefined)?.code;

describeEachDialect('priorities', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('stores and shows the priority; the default is 0; out of range is a BAD_REQUEST', async () => {
    const c = f.http(f.keyA);
    const urgent = await c.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'u' },
      priority: 9,
    });
    const plain = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'p' } });
    expect((await c.jobs.get.query({ id: urgent.id })).priority).toBe(9);
    expect((await c.jobs.get.query({ id: plain.id })).priority).toBe(0);
    const before = await f.counts();
    for (const priority of [11, -11, 1.5]) {
      const e = await errorOf(
        c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' }, priority }),
      );
      expect(codeOf(e)).toBe('BAD_REQUEST');
    }
    expect(await f.counts()).toEqual(before);
  });

  it('a runtime that cannot order by priority refuses a non-zero one, writing nothing', async () => {
    const runtime = {
      ...createEmbeddedDispatcher(ctx().database),
      capabilities: { ...EMBEDDED_CAPABILITIES, prioritizes: false },
    };
    const g = await startGateway(ctx(), { runtime });
    try {
      const c = g.http(g.keyA);
      const before = await g.counts();
      const e = await errorOf(
        c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' }, priority: 3 }),
      );
      expect(codeOf(e)).toBe('BAD_REQUEST');
      expect(e.message).toMatch(/priority/);
      const after = await g.counts();
      expect([after.jobs, after.events]).toEqual([before.jobs, before.events]);
      const ok = await c.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: 'y' },
        priority: 0,
      });
      expect(ok.state).toBe('queued');
    } finally {
      await g.close();
    }
  });
});
