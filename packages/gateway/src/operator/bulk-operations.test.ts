// Catches a bulk operation that acts twice, skips, leaks or dies with its gateway: a dry run
// counts what the action can move; a start is idempotent by its operation key and recorded in
// the audit log; the runner moves every matching job exactly once, batch by batch, leaving the
// others alone; a gateway stopped mid-operation leaves it to the next one, which resumes from
// the stored cursor; a runner that died holding the lease is taken over once it lapses; a bulk
// cancel does what one job's cancel does after it (waits closed, attached children cancelled).
import {
  createApiKey,
  getBulkOperation,
  getJobById,
  getWait,
  registerWait,
  startChild,
  insertBulkOperation,
  leaseBulkOperation,
  listEvents,
  type SluiceDatabase,
} from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { deadLetterJob, startJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('bulk operations', (ctx) => {
  let key: string;
  let keyId: string;
  const open: GatewayFixture[] = [];
  const gateway = async (bulk: Record<string, number>) => {
    const f = await startGateway(ctx(), { bulk });
    open.push(f);
    return f;
  };
  beforeAll(async () => {
    const k = await createApiKey(ctx().database.db, 'acme', {
      scopes: ['jobs:submit', 'jobs:read', 'jobs:manage'],
      label: 'bulk operator',
    });
    key = k.key;
    keyId = k.id;
  });
  afterEach(async () => {
    for (const f of open.splice(0)) await f.close();
  });

  /** `n` dead-lettered jobs tagged `tag`. */
  async function deadLettered(f: GatewayFixture, n: number, tag: string): Promise<string[]> {
    const c = f.http(key);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const { id } = await c.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: `${tag}-${i}` },
        tags: [tag],
      });
      await deadLetterJob(ctx().database, id, 'PROVIDER_OUTAGE');
      ids.push(id);
    }
    return ids;
  }

  /** How many times each job was requeued (events dead_lettered → queued). */
  async function requeues(database: SluiceDatabase, ids: readonly string[]) {
    return Promise.all(
      ids.map(
        async (id) =>
          (await listEvents(database.db, id)).filter(
            (e) => 'to' in e && e.from === 'dead_lettered' && e.to === 'queued',
          ).length,
      ),
    );
  }

  it('previews, then requeues every matching job exactly once; a repeated start is the same operation', async () => {
    const f = await gateway({ batchSize: 7, pauseMs: 0, pollMs: 50 });
    const c = f.http(key);
    const outage = await deadLettered(f, 20, 'outage-a');
    const other = await deadLettered(f, 3, 'other-a');
    const filter = { tags: ['outage-a'] };
    expect(await c.bulk.preview.query({ action: 'requeue', filter })).toMatchObject({ count: 20 });
    expect(await c.bulk.preview.query({ action: 'cancel', filter })).toMatchObject({ count: 0 });

    const op = await c.bulk.start.mutate({
      action: 'requeue',
      filter,
      operationKey: 'outage-a',
      note: 'provider back',
    });
    expect(op).toMatchObject({ state: 'running', total: 20, isDuplicate: false });
    await waitFor(async () => (await c.bulk.get.query({ id: op.id })).state === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect(await c.bulk.get.query({ id: op.id })).toMatchObject({
      processed: 20,
      applied: 20,
      skipped: 0,
      failed: 0,
      finishedAt: expect.any(String),
    });
    expect(await requeues(ctx().database, outage)).toEqual(outage.map(() => 1));
    expect(await requeues(ctx().database, other)).toEqual(other.map(() => 0));

    const again = await c.bulk.start.mutate({
      action: 'requeue',
      filter,
      operationKey: 'outage-a',
    });
    expect(again).toMatchObject({ id: op.id, isDuplicate: true, state: 'succeeded' });
    const audit = await c.audit.list.query({ action: 'bulk.start' });
    expect(audit.items.filter((e) => e.target === op.id)).toEqual([
      expect.objectContaining({ keyId, keyLabel: 'bulk operator', note: 'provider back' }),
    ]);
  });

  it('refuses what it must: no jobs:manage, an approval without a note, another tenant', async () => {
    const f = await gateway({ pollMs: 50 });
    const filter = { tags: ['x'] };
    const weak = await errorOf(f.http(f.keyA).bulk.preview.query({ action: 'requeue', filter }));
    expect(weak.data).toMatchObject({ code: 'FORBIDDEN' });
    const noNote = await errorOf(
      f.http(key).bulk.start.mutate({ action: 'approve', filter, operationKey: 'n' }),
    );
    expect(noNote.data).toMatchObject({ code: 'BAD_REQUEST' });
    expect((noNote.data as { issues?: { path: string }[] }).issues?.[0]?.path).toBe('note');
    const cross = await errorOf(
      f.http(key).bulk.preview.query({ action: 'requeue', filter: { tenant: 'globex' } }),
    );
    expect(cross.message).toMatch(/^filter.tenant: /);
  });

  it('a gateway stopped mid-operation leaves it to the next, which resumes from the cursor', async () => {
    const a = await gateway({ batchSize: 4, pauseMs: 250, pollMs: 50 });
    const ids = await deadLettered(a, 24, 'outage-b');
    const op = await a.http(key).bulk.start.mutate({
      action: 'requeue',
      filter: { tags: ['outage-b'] },
      operationKey: 'outage-b',
    });
    await waitFor(async () => (await a.http(key).bulk.get.query({ id: op.id })).processed >= 4, {
      timeoutMs: 10_000,
    });
    await a.gateway.close(); // mid-operation: the batch in flight finishes, the lease goes back
    const midway = await getBulkOperation(ctx().database.db, 'acme', op.id);
    expect(midway?.state).toBe('running');
    expect(midway?.processed).toBeLessThan(24);

    const b = await gateway({ batchSize: 50, pauseMs: 0, pollMs: 50 });
    await waitFor(
      async () => (await b.http(key).bulk.get.query({ id: op.id })).state === 'succeeded',
      {
        timeoutMs: 15_000,
      },
    );
    expect(await b.http(key).bulk.get.query({ id: op.id })).toMatchObject({
      processed: 24,
      applied: 24,
    });
    expect(await requeues(ctx().database, ids)).toEqual(ids.map(() => 1));
  });

  it('an operation whose runner died holding the lease is taken over once the lease lapses', async () => {
    const seed = await gateway({ pollMs: 60_000 });
    const ids = await deadLettered(seed, 6, 'outage-c');
    const db = ctx().database.db;
    const { op } = await insertBulkOperation(db, {
      tenantId: 'acme',
      operationKey: 'outage-c',
      action: 'requeue',
      filter: { tags: ['outage-c'] },
      params: {},
      note: null,
      total: 6,
      createdBy: keyId,
    });
    // A gateway that took it and died: it holds the lease for 800 ms and never advances.
    expect(await leaseBulkOperation(db, 'dead-gateway', 800)).toMatchObject({ id: op.id });
    const b = await gateway({ batchSize: 4, pauseMs: 0, pollMs: 100 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await getBulkOperation(db, 'acme', op.id))?.processed).toBe(0);
    await waitFor(async () => (await getBulkOperation(db, 'acme', op.id))?.state === 'succeeded', {
      timeoutMs: 10_000,
    });
    expect(await requeues(ctx().database, ids)).toEqual(ids.map(() => 1));
    void b;
  });

  it("a bulk cancel closes waits and cascades to attached children, like one job's cancel", async () => {
    const f = await gateway({ batchSize: 2, pauseMs: 0, pollMs: 50 });
    const { database } = ctx();
    const c = f.http(key);
    const parents: { id: string; attached: string; detached: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const { id } = await c.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: `p${i}` },
        tags: ['bulk-cancel'],
      });
      const epoch = await startJob(database, id);
      const child = async (name: string, detached: boolean) => {
        const r = await startChild(database, {
          parentId: id,
          parentEpoch: epoch,
          key: name,
          child: {
            id: `v1-${`${name}${i}`.padEnd(26, 'b')}`,
            tenantId: '',
            kind: 'demo.copy',
            version: 'v1',
            input: { text: name },
            inputHash: name,
            maxAttempts: 3,
            detached,
          },
        });
        if (r.kind !== 'started') throw new Error('fenced');
        return r.id;
      };
      parents.push({ id, attached: await child('att', false), detached: await child('det', true) });
      const row = await getJobById(database.db, id);
      const waited = await registerWait(database, {
        jobId: id,
        fence: { epoch, lastSeq: row?.lastSeq ?? 0 },
        waitKey: 'children#1',
        kind: 'children',
        children: [parents[i]?.attached as string],
        mode: 'all',
      });
      expect(waited.kind).toBe('suspended');
    }
    const op = await c.bulk.start.mutate({
      action: 'cancel',
      filter: { tags: ['bulk-cancel'] },
      operationKey: 'bulk-cancel',
    });
    await waitFor(async () => (await c.bulk.get.query({ id: op.id })).state === 'succeeded', {
      timeoutMs: 10_000,
    });
    expect(await c.bulk.get.query({ id: op.id })).toMatchObject({ processed: 3, applied: 3 });
    for (const p of parents) {
      expect((await getJobById(database.db, p.id))?.state).toBe('cancelled');
      expect(await getJobById(database.db, p.attached)).toMatchObject({
        state: 'cancelled',
        reason: 'PARENT_CANCELLED',
      });
      // A detached child lives on: still due, or already moved on by the due-job scheduler.
      expect(['scheduled', 'queued']).toContain((await getJobById(database.db, p.detached))?.state);
      expect((await getWait(database.db, p.id, 'children#1'))?.status).toBe('cancelled');
    }
  });
});
