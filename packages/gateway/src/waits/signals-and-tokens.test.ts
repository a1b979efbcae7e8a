// The gateway's door to durable waits, over HTTP with real keys: `jobs.signal` (typed errors
// naming the field, nothing written when refused, tenant scope), approval tokens (single use:
// a replay is refused and the first completion's effect stands exactly once; expiry; unknown
// tokens throttled), `jobs.children` and the cancel cascade. The worker's part is played with
// storage calls (registerWait, createTokenRow, startChild), the same ones the worker makes.

import {
  getJobById,
  listEvents,
  registerWait,
  startChild,
  sweepCandidates,
  createTokenRow,
  type SluiceDatabase,
} from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import { hashToken } from './token-hash.js';

async function waitingJob(f: GatewayFixture, key = f.keyA): Promise<string> {
  const { id } = await f
    .http(key)
    .jobs.submit.mutate({ kind: 'demo.approve', input: { text: 'x' } });
  const database = f.db.database;
  const epoch = await startJob(database, id);
  const row = await getJobById(database.db, id);
  const r = await registerWait(database, {
    jobId: id,
    fence: { epoch, lastSeq: row?.lastSeq ?? 0 },
    waitKey: 'event:approved#1',
    kind: 'event',
    event: 'approved',
  });
  expect(r.kind).toBe('suspended');
  return id;
}

const TOKEN = 'A'.repeat(40) + 'b_-';

async function tokenFor(
  database: SluiceDatabase,
  jobId: string,
  token: string,
  expiresInMs: number,
) {
  const row = await getJobById(database.db, jobId);
  // A token is made by a running attempt: play one that holds the job at its epoch.
  const r = await createTokenRow(database, {
    tokenHash: await hashToken(token),
    jobId,
    tokenKey: `token:approved#${token.slice(0, 4)}`,
    epoch: row?.epoch ?? 0,
    event: 'approved',
    expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
  });
  return r;
}

describeEachDialect('signals and approval tokens', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), {
      limits: { failedAuthPerAddress: { perSecond: 0.01, burst: 5 } },
    });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('a signal resumes the waiting job once; a retried send with its id stores nothing more', async () => {
    const id = await waitingJob(f);
    const client = f.http(f.keyA);
    const first = await client.jobs.signal.mutate({
      id,
      name: 'approved',
      payload: { ok: true, by: 'ann' },
      signalId: 'click-1',
    });
    expect(first).toMatchObject({ delivered: true, isDuplicate: false, signalId: 'click-1' });
    const again = await client.jobs.signal.mutate({
      id,
      name: 'approved',
      payload: { ok: false, by: 'bob' },
      signalId: 'click-1',
    });
    expect(again).toMatchObject({ isDuplicate: true });
    expect((await client.jobs.get.query({ id })).state).toBe('queued');
    const resumes = (await listEvents(f.db.database.db, id)).filter(
      (e) => 'from' in e && e.from === 'waiting',
    );
    expect(resumes).toHaveLength(1);
  });

  it('refuses a bad signal with a typed error naming the field, and writes nothing', async () => {
    const id = await waitingJob(f);
    const client = f.http(f.keyA);
    const before = await f.counts();
    const badPayload = await errorOf(
      client.jobs.signal.mutate({ id, name: 'approved', payload: { ok: 'yes' } }),
    );
    expect(badPayload).toMatchObject({
      data: {
        code: 'BAD_REQUEST',
        issues: expect.arrayContaining([expect.objectContaining({ path: 'payload.ok' })]),
      },
    });
    const badName = await errorOf(client.jobs.signal.mutate({ id, name: 'rejected', payload: {} }));
    expect(badName).toMatchObject({ data: { code: 'BAD_REQUEST', issues: [{ path: 'name' }] } });
    const otherTenant = await errorOf(
      f.http(f.keyB).jobs.signal.mutate({ id, name: 'approved', payload: { ok: true, by: 'x' } }),
    );
    expect(otherTenant).toMatchObject({ data: { code: 'NOT_FOUND' } });
    expect(await f.counts()).toEqual(before);
    expect((await client.jobs.get.query({ id })).state).toBe('waiting');
  });

  it('a cancelled waiting job closes its waits: the sweep skips them and a signal is refused', async () => {
    // Catches a cancel that leaves the wait open: the sweep would read it every pass forever.
    const id = await waitingJob(f);
    const database = f.db.database;
    const client = f.http(f.keyA);
    expect(await client.jobs.cancel.mutate({ id })).toMatchObject({ state: 'cancelled' });
    // Made due only after the cancel: made due before it, the gateway's own sweep (running
    // meanwhile) may time the wait out first on a loaded machine, and the case tests nothing.
    await database.db
      .updateTable('job_waits')
      .set({ due_at: new Date(Date.now() - 1000).toISOString() })
      .where('job_id', '=', id)
      .execute();
    const waits = await database.db
      .selectFrom('job_waits')
      .select('status')
      .where('job_id', '=', id)
      .execute();
    expect(waits).toEqual([{ status: 'cancelled' }]);
    expect(
      (await sweepCandidates(database.db, Date.now(), 500)).filter((c) => c.jobId === id),
    ).toEqual([]);
    const late = await errorOf(
      client.jobs.signal.mutate({ id, name: 'approved', payload: { ok: true, by: 'late' } }),
    );
    expect(late).toMatchObject({ data: { code: 'CONFLICT' } });
  });

  it('a token completes its wait once: GET shows it, a replay is refused, the job resumed exactly once', async () => {
    const id = await waitingJob(f);
    const database = f.db.database;
    // The token is made while the job runs; here it waits already, so make it at its epoch.
    await database.db.updateTable('jobs').set({ state: 'running' }).where('id', '=', id).execute();
    expect((await tokenFor(database, id, TOKEN, 60_000)).kind).toBe('stored');
    await database.db.updateTable('jobs').set({ state: 'waiting' }).where('id', '=', id).execute();
    const url = `${f.url}/v1/tokens/${TOKEN}`;
    const shown = await fetch(url);
    expect(shown.status).toBe(200);
    expect(await shown.json()).toMatchObject({ status: 'open', event: 'approved' });
    const bad = await fetch(url, { method: 'POST', body: JSON.stringify({ payload: { ok: 1 } }) });
    expect(bad.status).toBe(400);
    expect((await f.http(f.keyA).jobs.get.query({ id })).state).toBe('waiting');
    const post = () =>
      fetch(url, { method: 'POST', body: JSON.stringify({ payload: { ok: true, by: 'web' } }) });
    const [a, b] = await Promise.all([post(), post()]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const replay = await post();
    expect(replay.status).toBe(409);
    expect(await replay.json()).toMatchObject({ error: { code: 'TOKEN_USED' } });
    expect((await f.http(f.keyA).jobs.get.query({ id })).state).toBe('queued');
    const resumes = (await listEvents(database.db, id)).filter(
      (e) => 'from' in e && e.from === 'waiting',
    );
    expect(resumes).toHaveLength(1);
    const stored = await database.db
      .selectFrom('job_tokens')
      .select(['token_hash', 'status'])
      .where('job_id', '=', id)
      .execute();
    // Only the hash is stored, never the token.
    expect(stored).toEqual([{ token_hash: await hashToken(TOKEN), status: 'used' }]);
  });

  it('an expired token is refused (410) and an unknown one is throttled after a burst (429)', async () => {
    const id = await waitingJob(f);
    const database = f.db.database;
    await database.db.updateTable('jobs').set({ state: 'running' }).where('id', '=', id).execute();
    const expired = 'E'.repeat(43);
    await tokenFor(database, id, expired, 1);
    await database.db.updateTable('jobs').set({ state: 'waiting' }).where('id', '=', id).execute();
    await new Promise((r) => setTimeout(r, 20));
    const gone = await fetch(`${f.url}/v1/tokens/${expired}`, {
      method: 'POST',
      body: JSON.stringify({ payload: { ok: true, by: 'late' } }),
    });
    expect(gone.status).toBe(410);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const guess = `${String(i).padStart(2, '0')}${'z'.repeat(41)}`;
      statuses.push((await fetch(`${f.url}/v1/tokens/${guess}`)).status);
    }
    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(statuses).toContain(429);
  });

  it('children are listed with their parent, and a cancel cascades to attached children only', async () => {
    const client = f.http(f.keyA);
    const { id } = await client.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'p' } });
    const database = f.db.database;
    const epoch = await startJob(database, id);
    const child = (key: string, detached: boolean) =>
      startChild(database, {
        parentId: id,
        parentEpoch: epoch,
        key,
        child: {
          id: `v1-${key.padEnd(26, 'a')}`,
          tenantId: '',
          kind: 'demo.copy',
          version: 'v1',
          input: { text: key },
          inputHash: key,
          maxAttempts: 3,
          detached,
        },
      });
    const attached = await child('attached', false);
    const detached = await child('detached', true);
    // A zombie parent (an older epoch) starts nothing.
    expect(
      await startChild(database, {
        parentId: id,
        parentEpoch: epoch - 1,
        key: 'zombie',
        child: {
          id: `v1-${'zombie'.padEnd(26, 'a')}`,
          tenantId: '',
          kind: 'demo.copy',
          version: 'v1',
          input: { text: 'z' },
          inputHash: 'z',
          maxAttempts: 3,
        },
      }),
    ).toEqual({ kind: 'fenced' });
    if (attached.kind !== 'started' || detached.kind !== 'started') throw new Error('not started');
    expect((await child('attached', false)).kind === 'started' && attached.id).toBe(attached.id);
    const kids = await client.jobs.children.query({ id });
    expect(kids.items.map((k) => [k.id, k.detached])).toEqual([
      [attached.id, false],
      [detached.id, true],
    ]);
    expect((await client.jobs.get.query({ id: attached.id })).parentId).toBe(id);
    expect(await errorOf(f.http(f.keyB).jobs.children.query({ id }))).toMatchObject({
      data: { code: 'NOT_FOUND' },
    });
    await client.jobs.cancel.mutate({ id });
    expect((await client.jobs.get.query({ id: attached.id })).state).toBe('cancelled');
    // It lives on: still due, or already queued by the gateway's due-job scheduler (it was due
    // at once), never cancelled.
    expect(['scheduled', 'queued']).toContain(
      (await client.jobs.get.query({ id: detached.id })).state,
    );
  });
});

describeEachDialect('a runtime without durable waits', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    const embedded = createEmbeddedDispatcher(ctx().database);
    f = await startGateway(ctx(), {
      runtime: { ...embedded, capabilities: { ...embedded.capabilities, durableWaits: false } },
    });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('refuses a kind that waits for events at submit, and jobs.signal, naming the capability', async () => {
    // Catches a kind accepted where nothing would ever wake it (silently ignored waits).
    const client = f.http(f.keyA);
    const before = await f.counts();
    const refused = await errorOf(
      client.jobs.submit.mutate({ kind: 'demo.approve', input: { text: 'x' } }),
    );
    expect(refused).toMatchObject({ data: { code: 'BAD_REQUEST' } });
    expect(refused.message).toMatch(/durable waits/);
    expect(await f.counts()).toEqual(before);
    const { id } = await client.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' } });
    const signal = await errorOf(client.jobs.signal.mutate({ id, name: 'approved', payload: {} }));
    expect(signal).toMatchObject({ data: { code: 'BAD_REQUEST' } });
    expect(signal.message).toMatch(/durableWaits/);
  });
});
