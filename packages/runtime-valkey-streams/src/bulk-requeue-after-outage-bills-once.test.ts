// Catches a bulk requeue that pays twice or leaves jobs behind on this runtime: 200 paid jobs
// (two retry-safe units each, `xp.paid`) run on 2 Streams worker processes over PostgreSQL while
// the provider is down for every u1 (503 before processing: nothing billed), so each job spends
// its attempts and is dead-lettered with u0 answered and billed. The outage ends; ONE bulk
// requeue by filter through the gateway brings every job to `succeeded`, and the provider's own
// ledger shows exactly one more bill per job — u1's, never answered before — and none for u0,
// answered before the outage (its answer comes from our ledger). The chaos audit then finds
// nothing lost, double-billed, ghosted or written by a zombie.

import { callsForJob, createApiKey, type LedgerRow } from '@sluice/storage';
import { startFakeProvider, waitFor, type FakeProvider } from '@sluice/testkit';
import { auditChaos, WorkerPool } from '@sluice/worker/chaos';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore } from '@sluice/storage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStreamsGateway, type StreamsGatewayFixture } from './testing/gateway-fixture.js';
import { PAID_CHILD_RUNTIME } from './testing/paid-runtime-entry.js';
import { useStreamsXpSuite } from './testing/streams-xp-suite.js';
import { submitQueued, transitionChains } from './testing/bulk-rig.js';

const JOBS = 200;
const suite = useStreamsXpSuite();
let provider: FakeProvider;
let pool: WorkerPool;
let gateway: StreamsGatewayFixture;
const blobDir = mkdtempSync(join(tmpdir(), 'sluice-bulk-outage-'));

beforeAll(async () => {
  provider = await startFakeProvider();
  pool = new WorkerPool((id) => ({
    RUNTIME_MODULE: PAID_CHILD_RUNTIME.pathname,
    DB_URL: suite.db.url,
    REDIS_URL: suite.fx.server.url,
    PROVIDER_URL: provider.url,
    WORKER_ID: id,
    LEASE_MS: '1500',
    CONCURRENCY: '16',
  }));
  await Promise.all(['w-1', 'w-2'].map((id) => pool.start(id)));
  gateway = await startStreamsGateway(
    suite.db,
    suite.fx.server.url,
    {},
    { bulk: { batchSize: 50, pauseMs: 10, pollMs: 200 } },
  );
}, 90_000);

afterAll(async () => {
  await gateway?.close();
  await pool?.stopAll();
  await provider?.[Symbol.asyncDispose]();
  rmSync(blobDir, { recursive: true, force: true });
});

/** Provider bills per `job unit`, read from the provider's own ledger file. */
function billsByUnit(): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of provider.readLedgerFile()) {
    if (r.billed) out.set(`${r.jobId} ${r.unitKey}`, (out.get(`${r.jobId} ${r.unitKey}`) ?? 0) + 1);
  }
  return out;
}

it(`a provider outage dead-letters ${JOBS} jobs; ONE bulk requeue brings all to succeeded, billing only the calls never answered`, async () => {
  const { database } = suite.db;
  const started = Date.now();
  // Every u1 call: 503 before processing, nothing billed, until the outage ends.
  await provider.setFaults([
    { endpoint: 'safe', unitKey: 'u1', fault: 'error-before-processing', times: 1_000_000 },
  ]);
  // Two attempts each: the outage spends them in seconds.
  const ids = await submitQueued(database, (p) => suite.fx.dispatch(p), {
    n: JOBS,
    kind: 'xp.paid',
    input: { call: 'safe', units: 2 },
    maxAttempts: 2,
  });
  const stateCount = async (state: string) =>
    Number(
      (
        await database.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('id', 'in', ids)
          .where('state', '=', state)
          .executeTakeFirstOrThrow()
      ).n,
    );
  await waitFor(async () => (await stateCount('dead_lettered')) === JOBS, {
    timeoutMs: 60_000,
    intervalMs: 250,
    message: `${JOBS} jobs dead-lettered`,
  });
  const deadMs = Date.now() - started;
  const before = billsByUnit();
  for (const id of ids) {
    expect(before.get(`${id} u0`)).toBe(1);
    expect(before.get(`${id} u1`)).toBeUndefined();
  }
  const ours = async () =>
    new Map<string, LedgerRow[]>(
      await Promise.all(ids.map(async (id) => [id, await callsForJob(database.db, id)] as const)),
    );
  const oursBefore = await ours();
  await provider.clearFaults();

  const { key } = await createApiKey(database.db, 'acme', { scopes: ['jobs:manage'] });
  const c = gateway.http(key);
  const filter = { kind: 'xp.paid', states: ['dead_lettered' as const] };
  expect(await c.bulk.preview.query({ action: 'requeue', filter })).toMatchObject({ count: JOBS });
  const requeueAt = Date.now();
  const op = await c.bulk.start.mutate({
    action: 'requeue',
    filter,
    operationKey: 'outage-over',
    note: 'provider back',
  });
  await waitFor(async () => (await c.bulk.get.query({ id: op.id })).state === 'succeeded', {
    timeoutMs: 30_000,
    message: 'bulk requeue finished',
  });
  expect(await c.bulk.get.query({ id: op.id })).toMatchObject({
    total: JOBS,
    processed: JOBS,
    applied: JOBS,
    skipped: 0,
    failed: 0,
  });
  await waitFor(async () => (await stateCount('succeeded')) === JOBS, {
    timeoutMs: 60_000,
    intervalMs: 250,
    message: `${JOBS} jobs succeeded`,
  });
  console.info(
    `[bulk-outage] ${JOBS} jobs dead-lettered in ${deadMs} ms; requeue → all succeeded in ` +
      `${Date.now() - requeueAt} ms`,
  );

  // The provider's own ledger: exactly one more bill per job, u1's; u0 never billed again.
  const after = billsByUnit();
  const extra = ids.map((id) => ({
    u0: (after.get(`${id} u0`) ?? 0) - (before.get(`${id} u0`) ?? 0),
    u1: (after.get(`${id} u1`) ?? 0) - (before.get(`${id} u1`) ?? 0),
  }));
  expect(extra.filter((e) => e.u0 !== 0 || e.u1 !== 1)).toEqual([]);

  // Our ledger: u0's row untouched (its answer was reused, not asked for again); u1 gained
  // exactly one answered call.
  const oursAfter = await ours();
  const changed = ids.filter((id) => {
    const [was, now] = [oursBefore.get(id) ?? [], oursAfter.get(id) ?? []];
    const u0 = (rows: LedgerRow[]) => JSON.stringify(rows.filter((r) => r.unitKey === 'u0'));
    const u1Answered = now.filter((r) => r.unitKey === 'u1' && r.outcome === 'succeeded');
    return u0(was) !== u0(now) || u1Answered.length !== 1 || now.length - was.length !== 1;
  });
  expect(changed).toEqual([]);

  const figures = await auditChaos({
    database,
    blobs: createLocalBlobStore(blobDir),
    ledger: provider.readLedgerFile(),
    ids,
    faults: { sigkills: 0, sigstops: 0, serverRestarts: 0, blackholes: 0, redispatched: 0 },
    runMs: Date.now() - started,
  });
  // Its zombie figure is left out: it counts every event after a job's first terminal one, and
  // a requeue reopens a dead-lettered job by design. The chain check below stands in for it.
  expect({
    lost: figures.lost,
    doubleBilled: figures.doubleBilled,
    ghostRows: figures.ghostRows,
  }).toEqual({ lost: 0, doubleBilled: 0, ghostRows: 0 });
  // Each job's transitions form one chain (every `from` is the previous `to`) with one requeue.
  const chains = await transitionChains(database, ids);
  expect(ids.filter((id) => chains.get(id)?.broken !== 0)).toEqual([]);
  expect(ids.filter((id) => chains.get(id)?.requeues !== 1)).toEqual([]);
  expect(figures.byState).toEqual({ succeeded: JOBS });
}, 150_000);
