// The authenticated state callback on a real gateway, both dialects: a Worker's signed attempt
// writes land fenced by epoch; a bad signature, a timestamp outside the window, an invalid body,
// another tenant's job or a stale attempt write nothing (rows and files counted before/after).
import { type JobEvent } from '@sluice/contracts';
import { signStateReport, STATE_CALLBACK_PATH, type StateReport } from '../wire/index.js';
import { dueOutbox, getJobById, listEvents } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { CALLBACK_SECRET, useCallbackGateway } from '../testing/callback-gateway.js';

const SECRET = CALLBACK_SECRET;

describeEachDialect('the state callback from Workers', (ctx) => {
  const g = useCallbackGateway(ctx);

  async function post(report: unknown, opts: { secret?: string; at?: number; raw?: string } = {}) {
    const body = opts.raw ?? JSON.stringify(report);
    const headers = await signStateReport(opts.secret ?? SECRET, body, opts.at ?? Date.now());
    return fetch(`${g.f.url}${STATE_CALLBACK_PATH}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
  }

  /** The start a Workflow instance makes: queued → running at the next epoch. */
  async function startReport(jobId: string): Promise<StateReport> {
    const row = await getJobById(ctx().database.db, jobId);
    if (!row) throw new Error('no job');
    const event: JobEvent = {
      jobId,
      seq: row.lastSeq + 1,
      at: new Date().toISOString(),
      type: 'state',
      from: 'queued',
      to: 'running',
      attempt: row.attempts + 1,
    };
    return {
      id: jobId,
      tenantId: row.tenantId,
      kind: row.kind,
      fence: { epoch: row.epoch, lastSeq: row.lastSeq, state: 'queued' },
      state: 'running',
      epoch: row.epoch + 1,
      attempts: row.attempts + 1,
      attemptId: 'cf_a1',
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
      leaseOwner: 'workflow-v1',
      events: [event],
    };
  }

  async function queued() {
    const r = await g.f
      .http(g.f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'w' } });
    expect(g.fake.instances.has(`echo-v1/${r.id}`)).toBe(true);
    // The dispatched job's outbox row goes in the background: let it, so counts stay still.
    await expect.poll(async () => (await dueOutbox(ctx().database.db, '9999')).length).toBe(0);
    return r.id;
  }

  it("a signed report lands fenced by epoch: the Worker's start, then its success", async () => {
    const id = await queued();
    const start = await startReport(id);
    const res = await post(start);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ applied: true, events: 1 });
    const running = await getJobById(ctx().database.db, id);
    expect(running).toMatchObject({ state: 'running', epoch: start.epoch });
    const done: StateReport = {
      ...start,
      fence: { epoch: start.epoch, lastSeq: running!.lastSeq, state: 'running' },
      state: 'succeeded',
      leaseUntil: null,
      leaseOwner: null,
      output: { text: 'w' },
      events: [
        {
          jobId: id,
          seq: running!.lastSeq + 1,
          at: new Date().toISOString(),
          type: 'state',
          from: 'running',
          to: 'succeeded',
        },
      ],
    };
    expect((await post(done)).status).toBe(200);
    expect(await getJobById(ctx().database.db, id)).toMatchObject({
      state: 'succeeded',
      output: { text: 'w' },
    });
    const events = await listEvents(ctx().database.db, id);
    expect(events.map((e) => ('to' in e ? e.to : e.type))).toEqual([
      'accepted',
      'queued',
      'running',
      'succeeded',
    ]);
  });

  it('a stale attempt (or a replayed report) is fenced: 409, nothing written', async () => {
    const id = await queued();
    const start = await startReport(id);
    expect((await post(start)).status).toBe(200);
    const before = await g.f.counts();
    const replay = await post(start); // the same report again: its fence has moved on
    expect(replay.status).toBe(409);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('LEASE_LOST');
    expect(await g.f.counts()).toEqual(before);
  });

  it('refused before anything is read or written: bad signature, stale timestamp, bad body, wrong tenant', async () => {
    const id = await queued();
    const start = await startReport(id);
    const before = await g.f.counts();
    const row = await getJobById(ctx().database.db, id);
    const cases: [Response, number, string][] = [
      [await post(start, { secret: 'another-secret-of-at-least-32-chars!!' }), 401, 'UNAUTHORIZED'],
      [await post(start, { at: Date.now() - 10 * 60_000 }), 401, 'UNAUTHORIZED'],
      [await post(undefined, { raw: '{"id":' }), 400, 'BAD_REQUEST'],
      [await post({ ...start, state: 'bogus' }), 400, 'BAD_REQUEST'],
      [await post({ ...start, tenantId: 'globex' }), 404, 'NOT_FOUND'],
      [
        await fetch(`${g.f.url}${STATE_CALLBACK_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(start),
        }),
        401,
        'UNAUTHORIZED',
      ],
    ];
    for (const [res, status, code] of cases) {
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    expect(await g.f.counts()).toEqual(before);
    expect(await getJobById(ctx().database.db, id)).toEqual(row);
  });
});
