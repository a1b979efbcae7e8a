import { getJobById, listEvents } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deadLetterJob, startJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('dead letters', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('lists the tenant’s dead-lettered jobs, paged and by kind', async () => {
    const c = f.http(f.keyA);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: `d${i}` } });
      await deadLetterJob(ctx().database, id);
      ids.push(id);
    }
    await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'alive' } });
    const page1 = await c.deadLetters.list.query({ limit: 2 });
    const page2 = await c.deadLetters.list.query({ limit: 2, cursor: page1.nextCursor });
    expect([...page1.items, ...page2.items].map((j) => j.id).sort()).toEqual([...ids].sort());
    expect(page1.items[0]).toMatchObject({ state: 'dead_lettered', reason: 'MAX_ATTEMPTS' });
    expect((await c.deadLetters.list.query({ kind: 'demo.rollout' })).items).toEqual([]);
  });

  it('requeues with a fresh attempt budget, clears the row, keeps history, dispatches', async () => {
    const c = f.http(f.keyA);
    const db = ctx().database.db;
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'again' } });
    await startJob(ctx().database, id);
    await deadLetterJob(ctx().database, id);
    expect((await getJobById(db, id))?.attempts).toBe(1);

    expect(await c.deadLetters.requeue.mutate({ id })).toEqual({ id, state: 'queued' });
    const row = await getJobById(db, id);
    expect(row).toMatchObject({ state: 'queued', attempts: 0, reason: null, error: null });
    const events = await listEvents(db, id);
    expect(events.at(-2)).toMatchObject({
      type: 'dead_letter',
      reason: 'MAX_ATTEMPTS',
      error: { message: 'boom' },
    });
    expect(events.at(-1)).toMatchObject({ type: 'state', from: 'dead_lettered', to: 'queued' });

    const again = await errorOf(c.deadLetters.requeue.mutate({ id }));
    expect(again.data).toMatchObject({ code: 'CONFLICT' });
  });
});
