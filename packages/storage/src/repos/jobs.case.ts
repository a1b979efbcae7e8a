import { formatJobId, type JobEvent } from '@sluice/contracts';
import { expect } from 'vitest';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { listEvents } from './events.js';
import {
  appendAttemptEvents,
  findByIdempotencyKey,
  getJob,
  getJobById,
  insertJob,
  stillRunning,
  transitionJob,
  type NewJob,
} from './jobs.js';

function newJob(tenantId = 'acme', patch: Partial<NewJob> = {}): NewJob {
  return {
    id: formatJobId('v1'),
    tenantId,
    kind: 'demo.summarize',
    version: 'v1',
    input: { text: 'a. b.' },
    inputHash: 'h',
    maxAttempts: 3,
    ...patch,
  };
}

/** The suite, for every database (jobs.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function jobsCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
  it('inserts a job in accepted with event 1, readable only by its tenant', async () => {
    const { database } = ctx();
    const traceContext = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const job = newJob('acme', { idempotencyKey: 'k1', fileIds: ['f_x'], traceContext });
    const { job: row, event } = await repoWrite(database, (tx) => insertJob(tx, job));
    expect(row).toMatchObject({
      id: job.id,
      traceContext,
      state: 'accepted',
      attempts: 0,
      epoch: 0,
      lastSeq: 1,
      fileIds: ['f_x'],
      input: { text: 'a. b.' },
    });
    expect(event.event).toMatchObject({
      type: 'state',
      from: null,
      to: 'accepted',
      seq: 1,
      jobId: job.id,
    });
    expect(await getJob(database.db, 'acme', job.id)).toMatchObject({ id: job.id });
    expect(await getJob(database.db, 'other', job.id)).toBeUndefined();
    expect(await findByIdempotencyKey(database.db, 'acme', 'k1')).toMatchObject({ id: job.id });
    expect(await findByIdempotencyKey(database.db, 'other', 'k1')).toBeUndefined();
  });

  it('refuses a second job with the same tenant and idempotency key, but not across tenants', async () => {
    const { database } = ctx();
    await repoWrite(database, (tx) => insertJob(tx, newJob('t1', { idempotencyKey: 'same' })));
    await expect(
      repoWrite(database, (tx) => insertJob(tx, newJob('t1', { idempotencyKey: 'same' }))),
    ).rejects.toThrow();
    await repoWrite(database, (tx) => insertJob(tx, newJob('t2', { idempotencyKey: 'same' })));
    // jobs without a key never collide
    await repoWrite(database, (tx) => insertJob(tx, newJob('t1')));
    await repoWrite(database, (tx) => insertJob(tx, newJob('t1')));
  });

  it('walks a job through its life with contiguous event sequence numbers', async () => {
    const { database } = ctx();
    const job = newJob();
    await repoWrite(database, (tx) => insertJob(tx, job));
    const t = (req: Parameters<typeof transitionJob>[1]) =>
      repoWrite(database, (tx) => transitionJob(tx, req));
    expect((await t({ id: job.id, event: 'dispatch' })).ok).toBe(true);
    const started = await t({ id: job.id, event: 'start' });
    expect(started.ok && started.job).toMatchObject({ state: 'running', attempts: 1, epoch: 1 });
    const attemptId = started.ok ? started.job.attemptId : null;
    expect(attemptId).toMatch(/^[a-z2-7]{26}$/);
    const progress = await repoWrite(database, (tx) =>
      appendAttemptEvents(tx, job.id, 1, [
        { type: 'progress', data: { done: 1 } },
        { type: 'unit_done', unitKey: 'u0' },
      ]),
    );
    expect(progress?.map((p) => p.event.seq)).toEqual([4, 5]);
    const done = await t({
      id: job.id,
      event: 'succeed',
      epoch: 1,
      output: { summary: 'x', words: 2 },
    });
    expect(done.ok && done.job).toMatchObject({
      state: 'succeeded',
      output: { summary: 'x', words: 2 },
      lastSeq: 6,
    });
    expect(done.ok && done.job.finishedAt).toBeTruthy();
    const events = await listEvents(database.db, job.id);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.map((e) => [e.type, 'to' in e ? e.to : null])).toEqual([
      ['state', 'accepted'],
      ['state', 'queued'],
      ['state', 'running'],
      ['progress', null],
      ['unit_done', null],
      ['state', 'succeeded'],
    ]);
    expect((events[2] as Extract<JobEvent, { type: 'state' }>).attempt).toBe(1);
    expect((await listEvents(database.db, job.id, 4)).map((e) => e.seq)).toEqual([5, 6]);
  });

  it('is compare-and-set: an illegal or fenced transition changes nothing', async () => {
    const { database } = ctx();
    const job = newJob();
    await repoWrite(database, (tx) => insertJob(tx, job));
    const t = (req: Parameters<typeof transitionJob>[1]) =>
      repoWrite(database, (tx) => transitionJob(tx, req));
    const illegal = await t({ id: job.id, event: 'succeed' });
    expect(illegal).toMatchObject({ ok: false, job: { state: 'accepted', lastSeq: 1 } });
    await t({ id: job.id, event: 'dispatch' });
    await t({ id: job.id, event: 'start' });
    const reclaimed = await t({ id: job.id, event: 'reclaim', epoch: 1 });
    expect(reclaimed.ok && reclaimed.job).toMatchObject({
      state: 'running',
      attempts: 2,
      epoch: 2,
    });
    // the first attempt (epoch 1) is a zombie now: its writes are rejected
    expect(await t({ id: job.id, event: 'succeed', epoch: 1 })).toMatchObject({ ok: false });
    expect(
      await repoWrite(database, (tx) =>
        appendAttemptEvents(tx, job.id, 1, [{ type: 'progress', data: 1 }]),
      ),
    ).toBeUndefined();
    expect([
      ...(await stillRunning(database.db, [
        { id: job.id, epoch: 1 },
        { id: job.id, epoch: 2 },
      ])),
    ]).toEqual([job.id]);
    expect((await stillRunning(database.db, [{ id: job.id, epoch: 1 }])).size).toBe(0);
    expect(await getJobById(database.db, job.id)).toMatchObject({
      state: 'running',
      epoch: 2,
      lastSeq: 4,
    });
    expect(await t({ id: 'v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', event: 'cancel' })).toEqual({
      ok: false,
      job: undefined,
    });
  });

  it('two handles racing to start one job: exactly one wins', async () => {
    const test = ctx();
    const other = test.open();
    const jobs = Array.from({ length: 20 }, () => newJob());
    for (const j of jobs) {
      await repoWrite(test.database, (tx) => insertJob(tx, j));
      await repoWrite(test.database, (tx) => transitionJob(tx, { id: j.id, event: 'dispatch' }));
    }
    const results = await Promise.all(
      jobs.flatMap((j) =>
        [test.database, other].map((d) =>
          repoWrite(d, (tx) => transitionJob(tx, { id: j.id, event: 'start' })),
        ),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(20);
    for (const j of jobs)
      expect(await getJobById(test.database.db, j.id)).toMatchObject({
        state: 'running',
        attempts: 1,
        epoch: 1,
        lastSeq: 3,
      });
  });

  it('cancel works from accepted, queued and running, and records where it came from', async () => {
    const { database } = ctx();
    for (const steps of [[], ['dispatch'], ['dispatch', 'start']] as const) {
      const job = newJob();
      await repoWrite(database, (tx) => insertJob(tx, job));
      for (const s of steps)
        await repoWrite(database, (tx) => transitionJob(tx, { id: job.id, event: s }));
      const r = await repoWrite(database, (tx) =>
        transitionJob(tx, { id: job.id, event: 'cancel', reason: 'user' }),
      );
      expect(r.ok && r.event.event).toMatchObject({
        type: 'state',
        from: steps.length === 0 ? 'accepted' : steps.length === 1 ? 'queued' : 'running',
        to: 'cancelled',
        reason: 'user',
      });
      expect(
        (await repoWrite(database, (tx) => transitionJob(tx, { id: job.id, event: 'cancel' }))).ok,
      ).toBe(false);
    }
  });

  it('parks with needs_review and dead_letter events, and approve/requeue reset the budget', async () => {
    const { database } = ctx();
    const t = (req: Parameters<typeof transitionJob>[1]) =>
      repoWrite(database, (tx) => transitionJob(tx, req));
    const job = newJob();
    await repoWrite(database, (tx) => insertJob(tx, job));
    await t({ id: job.id, event: 'dispatch' });
    await t({ id: job.id, event: 'start' });
    const review = await t({
      id: job.id,
      event: 'review',
      reason: 'ambiguous provider failure',
      unitKey: 'u1',
      provider: 'acme',
      error: { kind: 'unknown', message: 'dropped' },
    });
    expect(review.ok && review.event.event).toMatchObject({
      type: 'needs_review',
      from: 'running',
      to: 'needs_review',
      reason: 'ambiguous provider failure',
      unitKey: 'u1',
      provider: 'acme',
    });
    const approved = await t({
      id: job.id,
      event: 'approve',
      resetAttempts: true,
      reason: 'approved by ops: provider confirmed no charge',
    });
    expect(approved.ok && approved.job).toMatchObject({ state: 'queued', attempts: 0 });
    await t({ id: job.id, event: 'start' });
    const dl = await t({
      id: job.id,
      event: 'dead_letter',
      reason: 'MAX_ATTEMPTS',
      detail: '3 attempts',
      error: { kind: 'non_retriable', message: 'x' },
    });
    expect(dl.ok && dl.event.event).toMatchObject({
      type: 'dead_letter',
      to: 'dead_lettered',
      reason: 'MAX_ATTEMPTS',
      detail: '3 attempts',
    });
    expect(dl.ok && dl.job).toMatchObject({
      reason: 'MAX_ATTEMPTS',
      error: { kind: 'non_retriable', message: 'x' },
    });
    const rq = await t({
      id: job.id,
      event: 'requeue',
      resetAttempts: true,
      reason: null,
      error: null,
    });
    expect(rq.ok && rq.job).toMatchObject({
      state: 'queued',
      attempts: 0,
      reason: null,
      error: null,
    });
    // the reason stays in the history
    expect(
      (await listEvents(database.db, job.id)).some(
        (e) => e.type === 'dead_letter' && e.reason === 'MAX_ATTEMPTS',
      ),
    ).toBe(true);
  });
  done();
}
