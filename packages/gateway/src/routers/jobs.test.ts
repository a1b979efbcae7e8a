import { getJobById, listEvents } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startJob, succeedJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

const JOB_VIEW_KEYS = [
  'attempts',
  'createdAt',
  'error',
  'fileIds',
  'finishedAt',
  'hold',
  'id',
  'kind',
  'lastSeq',
  'maxAttempts',
  'parentId',
  'priority',
  'reason',
  'runAt',
  'state',
  'updatedAt',
  'version',
  'waiting',
];

describeEachDialect('jobs router', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('gets, lists and pages jobs, showing no internal field', async () => {
    const c = f.http(f.keyA);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (
          await c.jobs.submit.mutate({
            kind: 'demo.echo',
            input: { text: `j${i}` },
            idempotencyKey: `l${i}`,
          })
        ).id,
      );
    }
    const job = await c.jobs.get.query({ id: ids[0]! });
    expect(Object.keys(job).sort()).toEqual(JOB_VIEW_KEYS);
    expect(job).toMatchObject({
      id: ids[0],
      kind: 'demo.echo',
      version: 'v1',
      state: 'queued',
      maxAttempts: 3,
    });
    // The view says which events it already holds: a feed's late delivery of one is ignored.
    const stored = await listEvents(ctx().database.db, ids[0]!);
    expect(job.lastSeq).toBe(Math.max(...stored.map((e) => e.seq)));
    const first = await c.jobs.list.query({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await c.jobs.list.query({ limit: 2, cursor: first.nextCursor });
    const seen = [...first.items, ...second.items].map((j) => j.id);
    for (const id of ids) expect(seen).toContain(id);
    for (const item of first.items) expect(Object.keys(item).sort()).toEqual(JOB_VIEW_KEYS);
    expect((await c.jobs.list.query({ state: 'succeeded' })).items).toEqual([]);
    expect((await c.jobs.list.query({ kind: 'demo.rollout' })).items).toEqual([]);
  });

  it('cancels a queued job; again is a no-op; a finished job is a CONFLICT', async () => {
    const c = f.http(f.keyA);
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'c' } });
    expect(await c.jobs.cancel.mutate({ id })).toEqual({ id, state: 'cancelled' });
    expect(await c.jobs.cancel.mutate({ id })).toEqual({ id, state: 'cancelled' });
    const events = await listEvents(ctx().database.db, id);
    expect(events.map((e) => e.type === 'state' && e.to)).toEqual([
      'accepted',
      'queued',
      'cancelled',
    ]);
    expect((await getJobById(ctx().database.db, id))?.finishedAt).not.toBeNull();

    const done = (await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'd' } })).id;
    const epoch = await startJob(ctx().database, done);
    await succeedJob(ctx().database, done, epoch, { text: 'D' });
    const e = await errorOf(c.jobs.cancel.mutate({ id: done }));
    expect(e.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409, sluiceCode: 'CONFLICT' });
    expect(e.message).toBe('cannot cancel a job that is succeeded');
  });

  it('returns the output once succeeded, null before', async () => {
    const c = f.http(f.keyA);
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'r' } });
    expect(await c.jobs.result.query({ id })).toEqual({
      id,
      state: 'queued',
      output: null,
      error: null,
      reason: null,
    });
    const epoch = await startJob(ctx().database, id);
    await succeedJob(ctx().database, id, epoch, { text: 'R' });
    expect(await c.jobs.result.query({ id })).toMatchObject({
      state: 'succeeded',
      output: { text: 'R' },
    });
  });

  it('refuses HTTP batches of more than 50 calls', async () => {
    const call = async (n: number) => {
      const paths = Array.from({ length: n }, () => 'jobs.list').join(',');
      const input = encodeURIComponent(
        JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))),
      );
      const res = await fetch(`${f.url}/trpc/${paths}?batch=1&input=${input}`, {
        headers: { authorization: `Bearer ${f.keyA}` },
      });
      return res.status;
    };
    expect(await call(50)).toBe(200);
    expect(await call(51)).toBe(400);
  });

  it('refuses malformed ids as BAD_REQUEST', async () => {
    const e = await errorOf(f.http(f.keyA).jobs.get.query({ id: '../../etc' }));
    expect(e.data).toMatchObject({ code: 'BAD_REQUEST', issues: [{ path: 'id' }] });
  });
});
