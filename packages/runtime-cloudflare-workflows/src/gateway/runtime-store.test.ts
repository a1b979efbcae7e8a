// A Workflow run's job store on a real gateway, both dialects (`wire/runtime-store.ts`): the
// run reads its job row and writes its provider ledger over signed requests, applied by the same
// repository functions a Node runtime calls. A stale attempt's ledger row is fenced (409, no
// row); another tenant's job, a bad signature or a bad body are refused and write nothing.
import {
  RUNTIME_STORE_PATH,
  signStateReport,
  STATE_CALLBACK_PATH,
  type RuntimeStoreRequest,
  type StateReport,
} from '../wire/index.js';
import { callsForJob, dueOutbox, getJobById } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { CALLBACK_SECRET, useCallbackGateway } from '../testing/callback-gateway.js';

const SECRET = CALLBACK_SECRET;

describeEachDialect("a Workflow run's job store on the Node gateway", (ctx) => {
  const g = useCallbackGateway(ctx);

  async function signed(path: string, body: unknown, secret = SECRET) {
    const text = JSON.stringify(body);
    const headers = await signStateReport(secret, text, Date.now());
    return fetch(`${g.f.url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: text,
    });
  }
  const store = (req: RuntimeStoreRequest, secret?: string) =>
    signed(RUNTIME_STORE_PATH, req, secret);
  const ledgerRows = async () =>
    Number(
      (
        await ctx()
          .database.db.selectFrom('provider_calls')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function queued() {
    const r = await g.f
      .http(g.f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'w' } });
    await expect.poll(async () => (await dueOutbox(ctx().database.db, '9999')).length).toBe(0);
    const row = await getJobById(ctx().database.db, r.id);
    return row!;
  }

  /** Starts the job the way a run does: queued → running at the next epoch (state callback). */
  async function running() {
    const row = await queued();
    const start: StateReport = {
      id: row.id,
      tenantId: row.tenantId,
      kind: row.kind,
      fence: { epoch: row.epoch, lastSeq: row.lastSeq, state: 'queued' },
      state: 'running',
      epoch: row.epoch + 1,
      attempts: row.attempts + 1,
      attemptId: 'cf_a1',
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
      leaseOwner: 'workflow-v1',
      events: [
        {
          jobId: row.id,
          seq: row.lastSeq + 1,
          at: new Date().toISOString(),
          type: 'state',
          from: 'queued',
          to: 'running',
          attempt: row.attempts + 1,
        },
      ],
    };
    expect((await signed(STATE_CALLBACK_PATH, start)).status).toBe(200);
    return { ...row, epoch: start.epoch };
  }

  const intent = (job: { id: string; tenantId: string; epoch: number }) =>
    ({
      op: 'call_intent',
      jobId: job.id,
      tenantId: job.tenantId,
      unitKey: 'u1',
      callName: 'summarize',
      attemptId: 'cf_a1',
      epoch: job.epoch,
      stage: 'execute',
      provider: 'fake',
      modality: 'text',
      callClass: 'idempotent_by_key',
      requestKey: 'sluice-k1',
    }) as const;

  it('the snapshot is the job row, for its own tenant only', async () => {
    const row = await queued();
    const res = await store({ op: 'snapshot', jobId: row.id, tenantId: row.tenantId });
    expect(res.status).toBe(200);
    const { snapshot } = (await res.json()) as { snapshot: Record<string, unknown> };
    expect(snapshot).toMatchObject({
      id: row.id,
      state: 'queued',
      epoch: row.epoch,
      lastSeq: row.lastSeq,
      input: { text: 'w' },
    });
    const other = await store({ op: 'snapshot', jobId: row.id, tenantId: 'globex' });
    expect(other.status).toBe(404);
    const missing = await store({ op: 'snapshot', jobId: 'v1-nope', tenantId: row.tenantId });
    expect(await missing.json()).toEqual({ snapshot: null });
  });

  it("the ledger row lands in the gateway's database, and its outcome on it", async () => {
    const job = await running();
    const res = await store(intent(job));
    expect(res.status).toBe(200);
    const { row } = (await res.json()) as { row: { id: string; outcome: string } };
    expect(row.outcome).toBe('pending');
    expect(await callsForJob(ctx().database.db, job.id)).toMatchObject([
      { id: row.id, outcome: 'pending', epoch: job.epoch, unitKey: 'u1' },
    ]);
    const outcome = await store({
      op: 'call_outcome',
      jobId: job.id,
      tenantId: job.tenantId,
      unitKey: 'u1',
      rowId: row.id,
      outcome: 'succeeded',
      response: { status: 200, body: 'ok' },
    });
    expect(outcome.status).toBe(200);
    const calls = await store({
      op: 'calls',
      jobId: job.id,
      tenantId: job.tenantId,
      unitKey: 'u1',
      callName: 'summarize',
    });
    expect(await calls.json()).toMatchObject({
      calls: [{ id: row.id, outcome: 'succeeded', response: { status: 200, body: 'ok' } }],
    });
  });

  it("a stale attempt's ledger row is fenced: 409 LEASE_LOST, no row", async () => {
    const job = await running();
    const before = await ledgerRows();
    const stale = await store({ ...intent(job), epoch: job.epoch - 1 });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('LEASE_LOST');
    // Cancelled on the gateway: the live epoch is refused too.
    await g.f.http(g.f.keyA).jobs.cancel.mutate({ id: job.id });
    expect((await store(intent(job))).status).toBe(409);
    expect(await ledgerRows()).toBe(before);
  });

  it('refused before anything is written: bad signature, bad body, another tenant or row', async () => {
    const job = await running();
    const mine = (await (await store(intent(job))).json()) as { row: { id: string } };
    const other = await running();
    const before = { counts: await g.f.counts(), ledger: await ledgerRows() };
    const cases: [Response, number][] = [
      [await store(intent(job), 'another-secret-of-at-least-32-chars!!'), 401],
      [await store({ ...intent(job), op: 'bogus' } as unknown as RuntimeStoreRequest), 400],
      [await store({ ...intent(job), tenantId: 'globex' }), 404],
      [
        // Another job's id with this job's ledger row: not its row.
        await store({
          op: 'external_id',
          jobId: other.id,
          tenantId: other.tenantId,
          unitKey: 'u1',
          rowId: mine.row.id,
          externalId: 'ext-1',
        }),
        404,
      ],
    ];
    for (const [res, status] of cases) expect(res.status).toBe(status);
    expect({ counts: await g.f.counts(), ledger: await ledgerRows() }).toEqual(before);
    expect((await callsForJob(ctx().database.db, job.id))[0]?.externalId).toBeNull();
  });

  it('a dead letter is fenced by the epoch the run read', async () => {
    const row = await queued();
    const dl = { op: 'dead_letter', jobId: row.id, tenantId: row.tenantId } as const;
    const detail = 'v1 is not served here';
    const stale = { ...dl, epoch: row.epoch + 1, reason: 'VERSION_NOT_ROUTABLE', detail } as const;
    expect(await (await store(stale)).json()).toEqual({ moved: false });
    expect((await getJobById(ctx().database.db, row.id))?.state).toBe('queued');
    const live = { ...stale, epoch: row.epoch };
    expect(await (await store(live)).json()).toEqual({ moved: true });
    expect(await getJobById(ctx().database.db, row.id)).toMatchObject({
      state: 'dead_lettered',
      reason: 'VERSION_NOT_ROUTABLE',
    });
  });
});
