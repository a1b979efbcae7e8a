// Another tenant's job or file must answer exactly like a missing one (same code, message and
// data), and a cross-tenant call must change nothing. Catches IDOR (OWASP API1) in any procedure.

import { formatJobId } from '@sluice/contracts';
import { getJobById } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deadLetterJob } from '../testing/drive.js';
import { errorOf, record, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('tenancy', (ctx) => {
  let f: GatewayFixture;
  let jobA: string;
  let fileA: string;
  const missingJob = formatJobId('v1');
  const missingFile = 'f_aaaaaaaaaaaaaaaaaaaaaaaaaa';
  beforeAll(async () => {
    f = await startGateway(ctx());
    jobA = (await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'a' } }))
      .id;
    const res = await fetch(`${f.url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}` },
      body: 'secret of acme',
    });
    fileA = ((await res.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await f.close();
  });

  it('answers every job procedure for a foreign job exactly like a missing one', async () => {
    const b = f.http(f.keyB);
    const calls = {
      get: (id: string) => b.jobs.get.query({ id }),
      result: (id: string) => b.jobs.result.query({ id }),
      cancel: (id: string) => b.jobs.cancel.mutate({ id }),
      requeue: (id: string) => b.deadLetters.requeue.mutate({ id }),
      assets: (id: string) => b.jobs.assets.query({ id }),
      assetUrl: (id: string) => b.jobs.assetUrl.mutate({ id, name: 'out.txt' }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const foreign = await errorOf(call(jobA));
      const missing = await errorOf(call(missingJob));
      expect(foreign, name).toEqual(missing);
      expect(foreign.data, name).toMatchObject({ code: 'NOT_FOUND', sluiceCode: 'NOT_FOUND' });
    }
    const row = await getJobById(ctx().database.db, jobA);
    expect(row?.state).toBe('queued');
    const list = await b.jobs.list.query({});
    expect(list.items.map((j) => j.id)).not.toContain(jobA);
  });

  it('dead-lettered jobs of another tenant are neither listed nor requeued', async () => {
    const a = f.http(f.keyA);
    const id = (await a.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'dl' } })).id;
    await deadLetterJob(ctx().database, id);
    const b = f.http(f.keyB);
    expect((await b.deadLetters.list.query({})).items).toEqual([]);
    expect((await a.deadLetters.list.query({})).items.map((j) => j.id)).toContain(id);
    expect(await errorOf(b.deadLetters.requeue.mutate({ id }))).toEqual(
      await errorOf(b.deadLetters.requeue.mutate({ id: missingJob })),
    );
    expect((await getJobById(ctx().database.db, id))?.state).toBe('dead_lettered');
  });

  it('fails a foreign watch before any event, exactly like a missing job', async () => {
    const { client } = f.ws(f.keyB);
    const watch = (id: string) =>
      record<{ id: string; data: { seq: number } }>((h) => client.jobs.watch.subscribe({ id }, h));
    const foreign = watch(jobA);
    const missing = watch(missingJob);
    const errors = await Promise.all(
      [foreign, missing].map((w) =>
        w.done.then(
          () => {
            throw new Error('expected an error');
          },
          (e: unknown) => {
            if (!(e instanceof TRPCClientError)) throw e;
            return { message: e.message, data: e.data as unknown, shape: e.shape as unknown };
          },
        ),
      ),
    );
    expect(errors[0]).toEqual(errors[1]);
    expect(errors[0]?.data).toMatchObject({ code: 'NOT_FOUND' });
    expect(foreign.items).toEqual([]);
  });

  it('answers foreign files exactly like missing ones, in get, delete and submit', async () => {
    const b = f.http(f.keyB);
    expect(await errorOf(b.files.get.query({ id: fileA }))).toEqual(
      await errorOf(b.files.get.query({ id: missingFile })),
    );
    expect(await errorOf(b.files.signedUrl.mutate({ id: fileA }))).toEqual(
      await errorOf(b.files.signedUrl.mutate({ id: missingFile })),
    );
    expect(await errorOf(b.files.delete.mutate({ id: fileA }))).toEqual(
      await errorOf(b.files.delete.mutate({ id: missingFile })),
    );
    const before = await f.counts();
    const submit = (id: string) =>
      b.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' }, fileIds: [id] });
    const foreign = await errorOf(submit(fileA));
    expect(foreign).toEqual(await errorOf(submit(missingFile)));
    expect(foreign.data).toMatchObject({ code: 'NOT_FOUND' });
    expect(await f.counts()).toEqual(before);
    expect((await b.files.list.query()).items).toEqual([]);
    // Still there for its owner.
    expect((await f.http(f.keyA).files.get.query({ id: fileA })).size).toBe(14);
  });
});
