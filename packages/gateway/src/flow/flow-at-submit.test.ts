// Flow control at the gateway's accept path, on SQLite and PostgreSQL: what a refused submit
// answers (BAD_REQUEST with an issue naming the field) and that it writes nothing; that a runtime
// without the capability refuses the option rather than run the job without it; and what the
// stored rows say after a fold (one job, the last input, a due time that never passes the window's
// bound) and after a held singleton (scheduled, no due time, waiting for its key); a job that
// `cancel-older` replaced is cancelled like any other (its attached children with it).
import { getJobById, startChild } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import { PUSH_RUNTIME_CAPABILITIES } from '../testing/capabilities.js';
import { startJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

type Issue = { path: string; code: string };
const issuesOf = (e: { data: unknown }) =>
  ((e.data as { issues?: Issue[] } | undefined)?.issues ?? []).map((i) => i.path);

describeEachDialect('flow control at submit', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('refuses what it cannot honour, naming the field, and writes nothing', async () => {
    const c = f.http(f.keyA);
    const input = { text: 'x' };
    const before = await f.counts();
    const cases: [object, string][] = [
      [{ debounce: { delayMs: 100 }, singleton: {} }, 'singleton'],
      [{ batch: { maxSize: 2, maxWaitMs: 10 } }, 'batch'],
      [{ debounce: {} }, 'debounce.delayMs'],
      [{ debounce: { delayMs: 100 }, delayMs: 50 }, 'delayMs'],
      [{ debounce: { delayMs: 100 }, idempotencyKey: 'k1' }, 'idempotencyKey'],
      [{ debounce: { delayMs: 100, mode: 'sometimes' } }, 'debounce.mode'],
      [{ singleton: { key: 'k', extra: 1 } }, 'singleton'],
      [{ debounce: { delayMs: 0 } }, 'debounce.delayMs'],
    ];
    for (const [opts, field] of cases) {
      const e = await errorOf(c.jobs.submit.mutate({ kind: 'demo.echo', input, ...opts } as never));
      expect((e.data as { sluiceCode: string }).sluiceCode).toBe('BAD_REQUEST');
      expect(issuesOf(e)).toContain(field);
    }
    expect(await f.counts()).toEqual(before);
  });

  it('a runtime without the capability refuses the option, writing nothing', async () => {
    const runtime = {
      ...createEmbeddedDispatcher(ctx().database),
      capabilities: PUSH_RUNTIME_CAPABILITIES,
    };
    const g = await startGateway(ctx(), { runtime });
    try {
      const c = g.http(g.keyA);
      const before = await g.counts();
      for (const [opts, capability] of [
        [{ debounce: { delayMs: 100 } }, 'debouncesSubmits'],
        [{ singleton: { mode: 'queue' } }, 'singletonKeys'],
      ] as const) {
        const e = await errorOf(
          c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' }, ...opts }),
        );
        const issues = (e.data as { issues: Issue[] }).issues;
        expect(issues).toEqual([
          expect.objectContaining({
            path: Object.keys(opts)[0],
            code: `unsupported:${capability}`,
          }),
        ]);
      }
      const after = await g.counts();
      expect([after.jobs, after.events]).toEqual([before.jobs, before.events]);
    } finally {
      await g.close();
    }
  });

  it('a trailing fold keeps one job: the last input, a due time bounded by maxDelayMs', async () => {
    const c = f.http(f.keyA);
    const opts = { debounce: { key: 'fold', delayMs: 60_000, maxDelayMs: 90_000 } };
    const first = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'a' }, ...opts });
    expect(first).toMatchObject({ state: 'scheduled', isDuplicate: false });
    expect(first.debounced).toBeUndefined();
    const opened = Date.parse((await c.jobs.get.query({ id: first.id })).runAt as string);
    for (const text of ['b', 'c']) {
      const again = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text }, ...opts });
      expect(again).toMatchObject({ id: first.id, state: 'scheduled', debounced: true });
    }
    const row = await ctx()
      .database.db.selectFrom('jobs')
      .select(['input', 'run_after'])
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(String(row.input))).toEqual({ text: 'c' });
    const due = Date.parse(row.run_after as string);
    expect(due).toBeGreaterThanOrEqual(opened);
    expect(due).toBeLessThanOrEqual(opened - 60_000 + 90_000);
    expect(await f.metricsText()).toMatch(
      /sluice_gateway_flow_submits_total\{flow="debounce",outcome="folded"\} 2\n/,
    );
    await c.jobs.cancel.mutate({ id: first.id });
    // The window's job was cancelled: the next submit opens a new one.
    const next = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'd' }, ...opts });
    expect(next.id).not.toBe(first.id);
    await c.jobs.cancel.mutate({ id: next.id });
  });

  it('a singleton held in queue mode waits scheduled, with no due time and its reason', async () => {
    const c = f.http(f.keyA);
    const opts = { singleton: { key: 'held', mode: 'queue' as const } };
    // No worker here: the first job stays queued, so the key stays live.
    const live = await c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: '1' }, ...opts });
    expect(live.state).toBe('queued');
    const held = await c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: '2' }, ...opts });
    expect(held.state).toBe('scheduled');
    const view = await c.jobs.get.query({ id: held.id });
    expect(view.runAt).toBeNull();
    expect(view.waiting).toMatchObject({ reason: 'singleton', name: 'demo.copy/held' });
    expect(await f.metricsText()).toMatch(
      /sluice_gateway_flow_submits_total\{flow="singleton",outcome="held"\} 1\n/,
    );
    // The live job ends: the due-job scheduler's next pass releases the held one.
    await c.jobs.cancel.mutate({ id: live.id });
    const released = await waitFor(async () => {
      const v = await c.jobs.get.query({ id: held.id });
      return v.state === 'queued' ? v : undefined;
    });
    expect(released.waiting ?? null).toBeNull();
    await c.jobs.cancel.mutate({ id: held.id });
  });
  it('cancel-older: the replaced job is cancelled like any other, its attached child with it', async () => {
    const c = f.http(f.keyA);
    const opts = { singleton: { key: 'replace', mode: 'cancel-older' as const } };
    const old = await c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: '1' }, ...opts });
    const { database } = ctx();
    const epoch = await startJob(database, old.id);
    const child = await startChild(database, {
      parentId: old.id,
      parentEpoch: epoch,
      key: 'only',
      child: {
        id: `v1-${'replaced'.padEnd(26, 'c')}`,
        tenantId: '',
        kind: 'demo.copy',
        version: 'v1',
        input: { text: 'child' },
        inputHash: 'child',
        maxAttempts: 3,
      },
    });
    if (child.kind !== 'started') throw new Error('fenced');
    const next = await c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: '2' }, ...opts });
    expect(next.state).toBe('queued');
    expect(await getJobById(database.db, old.id)).toMatchObject({
      state: 'cancelled',
      reason: 'SINGLETON_REPLACED',
    });
    expect(await getJobById(database.db, child.id)).toMatchObject({
      state: 'cancelled',
      reason: 'PARENT_CANCELLED',
    });
    await c.jobs.cancel.mutate({ id: next.id });
  });
});
