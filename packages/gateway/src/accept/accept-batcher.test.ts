// Group commit must keep every per-request guarantee of the row-by-row accept path. These cases
// put several requests into ONE batch (accepts queued in the same event-loop turn; `onBatch`
// proves it) and check what each request is answered and what the database holds: duplicates of
// one key inside a batch give one job, a bad item fails alone (the batch falls back to per-item
// transactions), a rejected request writes nothing, outbox rows for outside runtimes.
import {
  formatJobId,
  isSluiceError,
  type MessagePointer,
  type RouteResult,
} from '@sluice/contracts';
import { insertFile, newFileId, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { createAcceptBatcher, type AcceptAnswer, type AcceptItem } from './accept-batcher.js';
import { createDispatchPath } from '../dispatch/dispatch.js';
import { createEmbeddedDispatcher, EMBEDDED_CAPABILITIES } from '../runtimes/embedded.js';

const ok: RouteResult = { ok: true, version: 'v1' };
const notRoutable: RouteResult = {
  ok: false,
  reason: 'VERSION_NOT_ROUTABLE',
  version: 'v1',
  detail: 'no handler registered for v1',
};

function item(over: Partial<AcceptItem['job']> = {}, route: RouteResult = ok): AcceptItem {
  const input = over.input ?? { text: 'x' };
  return {
    job: {
      id: formatJobId('v1'),
      tenantId: 'acme',
      kind: 'demo.echo',
      version: 'v1',
      input,
      inputHash: JSON.stringify(input),
      idempotencyKey: null,
      fileIds: [],
      maxAttempts: 3,
      outcome: route.ok
        ? { to: 'queued' }
        : { to: 'dead_lettered', reason: route.reason, detail: route.detail },
      ...over,
    },
    route,
  };
}

function setup(database: SluiceDatabase, outside = false, delaysInRun = false) {
  const batches: { items: number; fallback: boolean }[] = [];
  const dispatched: string[] = [];
  const sent: MessagePointer[] = [];
  const runtime = outside
    ? {
        name: 'outside',
        capabilities: { ...EMBEDDED_CAPABILITIES, dispatchesInTransaction: false, delaysInRun },
        dispatch: async (pointers: readonly MessagePointer[]) => {
          dispatched.push(...pointers.map((p) => p.jobId));
          sent.push(...pointers);
        },
        close: async () => {},
      }
    : createEmbeddedDispatcher(database);
  const dispatch = createDispatchPath(runtime, database, (e) => {
    throw e;
  });
  const batcher = createAcceptBatcher(database, dispatch, { onBatch: (b) => batches.push(b) });
  return { batcher, batches, dispatched, sent, dispatch };
}

async function rowsOf(database: SluiceDatabase, ids: readonly string[]) {
  const db = database.db;
  const count = async (table: 'jobs' | 'job_events' | 'outbox', column: string, queued = false) => {
    if (ids.length === 0) return 0;
    let q = db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where(column as never, 'in', ids as never);
    // The embedded queue is the jobs table: a job is claimable once it is `queued`.
    if (queued) q = q.where('state' as never, '=', 'queued' as never);
    const r = await q.executeTakeFirstOrThrow();
    return Number(r.n);
  };
  return {
    jobs: await count('jobs', 'id'),
    // Event rows: an accepted job's two events are one row.
    events: await count('job_events', 'job_id'),
    queued: await count('jobs', 'id', true),
    outbox: await count('outbox', 'job_id'),
  };
}

const codeOf = (a: AcceptAnswer) => (!a.ok && isSluiceError(a.error) ? a.error.code : undefined);
const idOf = (a: AcceptAnswer) => (a.ok ? a.result.id : undefined);

describeEachDialect('accept batcher', (ctx) => {
  it('answers racing duplicates of one key inside one batch with one job', async () => {
    const { database } = ctx();
    const { batcher, batches } = setup(database);
    const same = { idempotencyKey: 'race-in-batch', input: { text: 'same' } };
    const items = [
      item(same),
      item(same),
      item({ ...same, input: { text: 'different' } }),
      item({ ...same, kind: 'demo.copy' }),
      item(same),
      item({ ...same, tenantId: 'globex' }),
    ];
    const answers = await Promise.all(items.map((i) => batcher.accept(i)));
    expect(batches).toEqual([{ items: 6, fallback: false }]);
    const [first, second, changed, otherKind, third, otherTenant] = answers as AcceptAnswer[];
    expect(first).toMatchObject({ ok: true, result: { state: 'queued', isDuplicate: false } });
    expect(first?.ok && first.events.map((e) => e.event.seq)).toEqual([1, 2]);
    for (const dup of [second, third]) {
      expect(dup).toEqual({
        ok: true,
        result: { id: idOf(first as AcceptAnswer), state: 'queued', isDuplicate: true },
        events: [],
      });
    }
    expect([changed, otherKind].map((a) => codeOf(a as AcceptAnswer))).toEqual([
      'CONFLICT',
      'CONFLICT',
    ]);
    expect(otherTenant).toMatchObject({ ok: true, result: { isDuplicate: false } });
    expect(idOf(otherTenant as AcceptAnswer)).not.toBe(idOf(first as AcceptAnswer));
    // Only the two leaders were written; the others' ids never reached the database.
    const ids = items.map((i) => i.job.id);
    expect(await rowsOf(database, ids)).toEqual({ jobs: 2, events: 2, queued: 2, outbox: 0 });
    const keyed = await database.db
      .selectFrom('jobs')
      .select('id')
      .where('idempotency_key', '=', 'race-in-batch')
      .execute();
    expect(keyed).toHaveLength(2);
  });

  it('answers a duplicate of a stored job from the database, next to new jobs', async () => {
    const { database } = ctx();
    const { batcher, batches } = setup(database);
    const key = { idempotencyKey: 'stored-1', input: { text: 'kept' } };
    const stored = await batcher.accept(item(key));
    batches.length = 0;
    const items = [item(key), item({ ...key, input: { text: 'changed' } }), item()];
    const answers = await Promise.all(items.map((i) => batcher.accept(i)));
    expect(batches).toEqual([{ items: 3, fallback: false }]);
    expect(answers[0]).toEqual({
      ok: true,
      result: { id: idOf(stored), state: 'queued', isDuplicate: true },
      events: [],
    });
    expect(codeOf(answers[1] as AcceptAnswer)).toBe('CONFLICT');
    expect(answers[2]).toMatchObject({ ok: true, result: { isDuplicate: false } });
    expect(await rowsOf(database, [items[0]!.job.id, items[1]!.job.id])).toEqual({
      jobs: 0,
      events: 0,
      queued: 0,
      outbox: 0,
    });
  });

  it('fails a bad item alone: the others of its batch are written, it writes nothing', async () => {
    const { database } = ctx();
    const { batcher, batches } = setup(database);
    const key = { idempotencyKey: 'fallback-key', input: { text: 'k' } };
    // A NOT NULL column left null: the database refuses this row, as it would any bad value.
    const bad = item({ maxAttempts: null as unknown as number });
    const items = [item(key), item(), bad, item(key), item({}, notRoutable)];
    const answers = await Promise.all(items.map((i) => batcher.accept(i)));
    expect(batches).toEqual([
      { items: 5, fallback: false },
      ...items.map(() => ({ items: 1, fallback: true })),
    ]);
    const [leader, plain, failed, duplicate, parked] = answers as AcceptAnswer[];
    expect(failed?.ok).toBe(false);
    expect(leader).toMatchObject({ ok: true, result: { state: 'queued', isDuplicate: false } });
    expect(duplicate).toMatchObject({ ok: true, result: { id: idOf(leader!), isDuplicate: true } });
    expect(plain).toMatchObject({ ok: true, result: { state: 'queued', isDuplicate: false } });
    expect(parked).toMatchObject({ ok: true, result: { state: 'dead_lettered' } });
    expect(await rowsOf(database, [bad.job.id])).toEqual({
      jobs: 0,
      events: 0,
      queued: 0,
      outbox: 0,
    });
    const written = [leader, plain, parked].map((a) => idOf(a!) as string);
    expect(await rowsOf(database, written)).toEqual({ jobs: 3, events: 3, queued: 2, outbox: 0 });
  });

  it('writes nothing for a request naming a missing or foreign file', async () => {
    const { database } = ctx();
    const { batcher, batches } = setup(database);
    const file = (tenantId: string) =>
      insertFile(database.db, {
        id: newFileId(),
        tenantId,
        blobKey: `blob-${newFileId()}`,
        size: 1,
        sha256: 'x',
        contentType: 'text/plain',
        filename: null,
        createdAt: new Date().toISOString(),
        expiresAt: '2999-01-01T00:00:00.000Z',
      });
    const [mine, theirs] = [await file('acme'), await file('globex')];
    const items = [
      item({ fileIds: [mine.id, theirs.id] }),
      item({ fileIds: ['f_missing'], idempotencyKey: 'file-key' }),
      item({ fileIds: [mine.id] }),
    ];
    const answers = await Promise.all(items.map((i) => batcher.accept(i)));
    expect(batches).toEqual([{ items: 3, fallback: false }]);
    expect(answers.map(codeOf)).toEqual(['NOT_FOUND', 'NOT_FOUND', undefined]);
    expect(await rowsOf(database, [items[0]!.job.id, items[1]!.job.id])).toEqual({
      jobs: 0,
      events: 0,
      queued: 0,
      outbox: 0,
    });
    const files = await database.db
      .selectFrom('files')
      .select(['id', 'expires_at'])
      .where('id', 'in', [mine.id, theirs.id])
      .orderBy('id')
      .execute();
    // Attached by the accepted request only: the foreign file still expires.
    expect(new Map(files.map((f) => [f.id, f.expires_at]))).toEqual(
      new Map([
        [mine.id, null],
        [theirs.id, '2999-01-01T00:00:00.000Z'],
      ]),
    );
  });

  it('writes outbox rows for an outside runtime and dispatches after commit', async () => {
    const { database } = ctx();
    const { batcher, batches, dispatched, dispatch } = setup(database, true);
    const items = [item(), item(), item({}, notRoutable)];
    const answers = await Promise.all(items.map((i) => batcher.accept(i)));
    expect(batches).toEqual([{ items: 3, fallback: false }]);
    const routed = answers.flatMap((a) => (a.ok && a.pointer ? [a.pointer.jobId] : []));
    expect(routed).toEqual([items[0]!.job.id, items[1]!.job.id]);
    expect(await rowsOf(database, routed)).toEqual({ jobs: 2, events: 2, queued: 2, outbox: 2 });
    const pointers = answers.flatMap((a) => (a.ok && a.pointer ? [a.pointer] : []));
    await dispatch.afterCommit(pointers, { markQueued: false });
    await dispatch.flush();
    expect(dispatched).toEqual(routed);
    expect(await rowsOf(database, routed)).toMatchObject({ outbox: 0 });
  });

  it('delayed_job_dispatched_at_submit_with_its_due_time only where the run waits for it (delaysInRun)', async () => {
    const { database } = ctx();
    const runAt = new Date(Date.now() + 60_000).toISOString();
    for (const delaysInRun of [true, false]) {
      const { batcher, sent, dispatch } = setup(database, true, delaysInRun);
      const later = item({ outcome: { to: 'scheduled', runAt } });
      const [answer] = await Promise.all([batcher.accept(later)]);
      expect(answer).toMatchObject({ ok: true, result: { state: 'scheduled' } });
      const pointer = answer?.ok ? answer.pointer : undefined;
      // With it: the pointer carries the due time and an outbox row guarantees its dispatch.
      // Without it: no pointer, no row; the due-job scheduler dispatches it when due.
      expect(pointer?.runAt).toBe(delaysInRun ? runAt : undefined);
      expect(await rowsOf(database, [later.job.id])).toMatchObject({
        outbox: delaysInRun ? 1 : 0,
      });
      if (pointer) await dispatch.afterCommit([pointer], { markQueued: false });
      await dispatch.flush();
      expect(sent.map((p) => p.runAt)).toEqual(delaysInRun ? [runAt] : []);
      expect(await rowsOf(database, [later.job.id])).toMatchObject({ outbox: 0 });
    }
  });

  it('gives one job per key when two gateways race with the same keys', async () => {
    const { database } = ctx();
    // Another replica: its own handle on PostgreSQL; on SQLite one handle per process.
    const other = ctx().dialect === 'postgres' ? ctx().open() : database;
    const a = setup(database).batcher;
    const b = setup(other).batcher;
    const keys = Array.from({ length: 8 }, (_, i) => `replica-race-${i}`);
    const mk = (key: string) => item({ idempotencyKey: key, input: { text: key } });
    const answers = await Promise.all(
      keys.flatMap((k) => [a.accept(mk(k)), b.accept(mk(k)), a.accept(mk(k)), b.accept(mk(k))]),
    );
    for (let k = 0; k < keys.length; k++) {
      const four = answers.slice(4 * k, 4 * k + 4);
      expect(four.every((x) => x.ok)).toBe(true);
      expect(new Set(four.map(idOf)).size).toBe(1);
      expect(four.filter((x) => x.ok && !x.result.isDuplicate)).toHaveLength(1);
    }
    const rows = await database.db
      .selectFrom('jobs')
      .select('id')
      .where('idempotency_key', 'in', keys)
      .execute();
    expect(rows).toHaveLength(keys.length);
  });
});
