// Dispatch to Cloudflare Workflows over the REST API, against a local fake of the documented API
// (a real HTTP server: testing/fake-workflows-api.ts), through a real gateway on both dialects.
// Waits are checked on a virtual clock (what the dispatcher asked to wait), never on wall time.
import { formatJobId, type MessagePointer } from '@sluice/contracts';
import { dueOutbox, getJobById } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeWorkflowsApi, type FakeWorkflowsApi } from '../testing/fake-workflows-api.js';
import { startGateway, type GatewayFixture } from '@sluice/gateway/conformance';
import type { Clock } from './token-bucket.js';
import { createWorkflowsRestDispatcher } from './create-workflows-rest-dispatcher.js';

const ACCOUNT = 'acc123';
const TOKEN = 'tok-test';

/** Virtual time: `sleep` moves it on at once and records what was asked. */
function virtualClock(): Clock & { sleeps: number[]; elapsed(): number } {
  let t = 1_000_000;
  const start = t;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
    elapsed: () => t - start,
  };
}

function pointers(n: number, version = 'v1'): MessagePointer[] {
  return Array.from({ length: n }, () => ({
    jobId: formatJobId(version),
    kind: 'demo.echo',
    version,
    tenantId: 'acme',
  }));
}

describeEachDialect('dispatch to Cloudflare Workflows over the REST API', (ctx) => {
  let fake: FakeWorkflowsApi;
  let f: GatewayFixture;
  let clock: ReturnType<typeof virtualClock>;
  const dispatcherFor = (
    workflows: Record<string, string>,
    limits?: { perAccount?: number; perWorkflow?: number },
  ) =>
    createWorkflowsRestDispatcher({
      database: ctx().database,
      accountId: ACCOUNT,
      apiToken: TOKEN,
      apiBase: fake.url,
      workflows,
      clock,
      maxTries: 4,
      limits,
    });
  beforeAll(async () => {
    fake = await startFakeWorkflowsApi({ accountId: ACCOUNT, apiToken: TOKEN });
    clock = virtualClock();
    f = await startGateway(ctx(), { runtime: dispatcherFor({ v1: 'echo-v1' }) });
  });
  afterEach(() => fake.fail(200, 0));
  afterAll(async () => {
    await f.close();
    await fake.close();
  });

  it("a submitted job becomes ONE instance on its version's Workflow: instance id = job id, params = its pointer", async () => {
    const r = await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'cf' } });
    expect(r.state).toBe('queued');
    const instance = fake.instances.get(`echo-v1/${r.id}`);
    expect(instance?.params).toEqual({
      jobId: r.id,
      kind: 'demo.echo',
      version: 'v1',
      tenantId: (await getJobById(ctx().database.db, r.id))?.tenantId,
      // the pointer as the accept path built it (the band of a Streams job; unused here)
      priority: 0,
    });
    await expect.poll(() => dueOutbox(ctx().database.db, '9999')).toEqual([]);
  });

  it('a burst goes out in batches of at most 100, paced to 100 creates/s per Workflow', async () => {
    const d = dispatcherFor({ v1: 'burst-v1' });
    const before = clock.elapsed();
    const sent = fake.requests.length;
    await d.dispatch(pointers(250));
    const batches = fake.requests.slice(sent).filter((q) => q.path.endsWith('/batch'));
    expect(batches.map((q) => q.ids.length)).toEqual([100, 100, 50]);
    expect([...fake.instances.values()].filter((i) => i.workflow === 'burst-v1')).toHaveLength(250);
    // 100 at once (the burst), then 150 more at 100/s: at least 1.5 s of waiting.
    expect(clock.elapsed() - before).toBeGreaterThanOrEqual(1500);
    expect(d.counts).toMatchObject({ created: 250, existed: 0, calls: 3 });
  });

  it('two Workflows share the account limit (300/s by default; 150/s here)', async () => {
    const d = dispatcherFor({ v1: 'acct-v1', v2: 'acct-v2' }, { perAccount: 150 });
    const before = clock.elapsed();
    await d.dispatch([...pointers(150, 'v1'), ...pointers(150, 'v2')]);
    expect(d.counts.created).toBe(300);
    expect(clock.elapsed() - before).toBeGreaterThanOrEqual(1000);
  });

  it('a lowered limit sizes the batches too: 25 creates at 10/s go out 10, 10, 5', async () => {
    const d = dispatcherFor({ v1: 'slow-v1' }, { perWorkflow: 10 });
    const before = clock.elapsed();
    const sent = fake.requests.length;
    await d.dispatch(pointers(25));
    const batches = fake.requests.slice(sent).filter((q) => q.path.endsWith('/batch'));
    expect(batches.map((q) => q.ids.length)).toEqual([10, 10, 5]);
    expect(clock.elapsed() - before).toBeGreaterThanOrEqual(1500);
  });

  it('a 429 is retried after its Retry-After, and nothing is created twice', async () => {
    const d = dispatcherFor({ v1: 'limited-v1' });
    const ps = pointers(3);
    fake.fail(429, 2, '3');
    const sent = fake.requests.length;
    await d.dispatch(ps);
    expect(fake.requests.slice(sent).map((q) => q.status)).toEqual([429, 429, 200]);
    expect(clock.sleeps.filter((ms) => ms === 3000).length).toBeGreaterThanOrEqual(2);
    expect(d.client.stats.rateLimited).toBe(2);
    expect([...fake.instances.values()].filter((i) => i.workflow === 'limited-v1')).toHaveLength(3);
  });

  it('a 5xx is retried with backoff; past the tries the dispatch fails and the outbox row stays', async () => {
    const d = dispatcherFor({ v1: 'flaky-v1' });
    fake.fail(503, 2);
    await d.dispatch(pointers(2));
    expect(d.counts.created).toBe(2);
    expect(d.client.stats.serverErrors).toBe(2);
    // Through the gateway: the API keeps failing → the job stays queued with its outbox row.
    fake.fail(500, 1000);
    const r = await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' } });
    expect(r.state).toBe('queued');
    expect(fake.instances.has(`echo-v1/${r.id}`)).toBe(false);
    expect(await dueOutbox(ctx().database.db, '9999')).toContain(r.id);
  });

  it('an instance that already exists counts as dispatched (confirmed by a GET), never created again', async () => {
    const d = dispatcherFor({ v1: 'dup-v1' });
    const [p] = pointers(1) as [MessagePointer];
    fake.instances.set(`dup-v1/${p.jobId}`, { id: p.jobId, workflow: 'dup-v1', params: 'earlier' });
    const sent = fake.requests.length;
    await d.dispatch([p]);
    expect(d.counts).toMatchObject({ created: 0, existed: 1 });
    expect(fake.instances.get(`dup-v1/${p.jobId}`)?.params).toBe('earlier');
    expect(fake.requests.slice(sent).map((q) => q.method)).toEqual(['POST', 'GET']);
  });

  it('a version with no configured Workflow is dead-lettered VERSION_NOT_ROUTABLE, never sent', async () => {
    // At accept: the gateway asks the runtime which versions it serves.
    const onlyV2 = await startGateway(ctx(), { runtime: dispatcherFor({ v2: 'echo-v2' }) });
    try {
      const sent = fake.requests.length;
      const r = await onlyV2.http(onlyV2.keyA).jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: 'nowhere' },
      });
      expect(r.state).toBe('dead_lettered');
      expect(await getJobById(ctx().database.db, r.id)).toMatchObject({
        state: 'dead_lettered',
        reason: 'VERSION_NOT_ROUTABLE',
      });
      expect(fake.requests.length).toBe(sent);
    } finally {
      await onlyV2.close();
    }
    // At dispatch (a pointer that reaches it anyway, e.g. from the reconciler).
    const r = await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'y' } });
    const d = dispatcherFor({ v2: 'echo-v2' });
    const sent = fake.requests.length;
    await d.dispatch([{ jobId: r.id, kind: 'demo.echo', version: 'v1', tenantId: 'acme' }]);
    expect(d.counts.deadLettered).toBe(1);
    expect(fake.requests.length).toBe(sent);
    expect(await getJobById(ctx().database.db, r.id)).toMatchObject({
      state: 'dead_lettered',
      reason: 'VERSION_NOT_ROUTABLE',
    });
  });
});
