// Catches a review path that pays twice or leaks across tenants: approve must authorise exactly
// one more call of each call an attempt left in billing doubt (recorded with who and why), and
// nothing else; requeue with a fresh attempt budget and dispatch; roll everything back when the
// job moved meanwhile. Discard fails the job keeping the note. Another tenant's job is NOT_FOUND.
// The worker's side is played with storage functions (the end to end runs in the client's tests).
import {
  callsForJob,
  getJobById,
  listEvents,
  recordCallIntent,
  recordCallOutcome,
  transitionJob,
  type SluiceDatabase,
} from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

/** A started attempt that sent a call and lost its answer, then parked for review. */
async function parkInReview(database: SluiceDatabase, id: string): Promise<void> {
  const epoch = await startJob(database, id);
  const attemptId = (await getJobById(database.db, id))?.attemptId ?? '-';
  const intent = (unitKey: string, callName: string, callClass: string) =>
    recordCallIntent(database.db, {
      jobId: id,
      unitKey,
      callName,
      attemptId,
      epoch,
      stage: 'execute',
      provider: 'fake',
      modality: 'text',
      callClass,
    });
  const dropped = await intent('u0', 'tts', 'ambiguous');
  if (!dropped) throw new Error('fenced');
  await recordCallOutcome(database.db, dropped.id, { outcome: 'connection_dropped' });
  await intent('u1', 'video', 'pollable'); // crashed after the row: pending, no external id
  const ok = await intent('u2', 'tts', 'ambiguous');
  if (ok) {
    await recordCallOutcome(database.db, ok.id, {
      outcome: 'succeeded',
      response: { status: 200, headers: {}, body: 'kept' },
    });
  }
  await intent('u3', 'tts', 'retry_safe'); // resent with its key: needs no approval
  const r = await database.transaction((tx) =>
    transitionJob(tx, {
      id,
      event: 'review',
      epoch,
      reason: 'call "tts" of unit "u0" failed: connection_dropped',
      unitKey: 'u0',
      provider: 'fake',
      error: { kind: 'needs_review', message: 'ambiguous' },
    }),
  );
  if (!r.ok) throw new Error('review did not apply');
}

describeEachDialect('review', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('lists the tenant’s jobs in review with reason, unit, provider and the calls in doubt', async () => {
    const c = f.http(f.keyA);
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'r1' } });
    await parkInReview(ctx().database, id);
    await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'not parked' } });
    const page = await c.review.list.query({});
    const item = page.items.find((i) => i.id === id);
    expect(item).toMatchObject({
      state: 'needs_review',
      review: { unitKey: 'u0', provider: 'fake', reason: expect.stringContaining('dropped') },
    });
    // What approve would authorise: the dropped call and the one left pending without an
    // external id; not the answered call, nor the retry-safe one.
    expect(item?.review.calls).toEqual([
      { unitKey: 'u0', callName: 'tts', provider: 'fake', outcome: 'connection_dropped' },
      { unitKey: 'u1', callName: 'video', provider: 'fake', outcome: 'pending' },
    ]);
    expect(page.items.every((i) => i.state === 'needs_review')).toBe(true);
    expect((await f.http(f.keyB).review.list.query({})).items).toEqual([]);
  });

  it('approve authorises exactly one more call per call in doubt, with who and why, and requeues', async () => {
    const c = f.http(f.keyA);
    const db = ctx().database.db;
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'r2' } });
    await parkInReview(ctx().database, id);

    const out = await c.review.approve.mutate({ id, note: 'dropped twice; invoice checked' });
    expect(out).toEqual({ id, kind: 'demo.echo', state: 'queued', authorised: 2 });
    const authorised = (await callsForJob(db, id)).filter((r) => r.outcome === 'authorised');
    expect(authorised.map((r) => [r.unitKey, r.callName]).sort()).toEqual([
      ['u0', 'tts'],
      ['u1', 'video'],
    ]);
    for (const r of authorised) {
      expect(r).toMatchObject({ authorisedBy: f.keyIdA, note: 'dropped twice; invoice checked' });
    }
    expect(await getJobById(db, id)).toMatchObject({ state: 'queued', attempts: 0, error: null });
    expect((await listEvents(db, id)).at(-1)).toMatchObject({
      type: 'state',
      from: 'needs_review',
      to: 'queued',
      reason: expect.stringContaining('invoice checked'),
    });

    // Approving again is a conflict and authorises nothing more.
    const again = await errorOf(c.review.approve.mutate({ id, note: 'again' }));
    expect(again.data).toMatchObject({ code: 'CONFLICT' });
    expect((await callsForJob(db, id)).filter((r) => r.outcome === 'authorised')).toHaveLength(2);
  });

  it('discard fails the job and keeps the note as the reason', async () => {
    const c = f.http(f.keyA);
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'r3' } });
    await parkInReview(ctx().database, id);
    const view = await c.review.discard.mutate({ id, note: 'billed already; do not retry' });
    expect(view).toMatchObject({ id, state: 'failed', reason: 'billed already; do not retry' });
    const db = ctx().database.db;
    expect((await callsForJob(db, id)).some((r) => r.outcome === 'authorised')).toBe(false);
    expect((await listEvents(db, id)).at(-1)).toMatchObject({ from: 'needs_review', to: 'failed' });
  });

  it('is tenant-scoped: another tenant’s job is NOT_FOUND; a job not in review is a CONFLICT', async () => {
    const c = f.http(f.keyA);
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'r4' } });
    await parkInReview(ctx().database, id);
    const other = f.http(f.keyB);
    for (const call of [
      other.review.approve.mutate({ id, note: 'x' }),
      other.review.discard.mutate({ id, note: 'x' }),
    ]) {
      expect((await errorOf(call)).data).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await getJobById(ctx().database.db, id))?.state).toBe('needs_review');
    const fresh = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'r5' } });
    const notParked = await errorOf(c.review.discard.mutate({ id: fresh.id, note: 'x' }));
    expect(notParked.data).toMatchObject({ code: 'CONFLICT' });
    const empty = await errorOf(c.review.approve.mutate({ id, note: '' }));
    expect(empty.data).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('/metrics shows provider calls by class and outcome, jobs in review and refusals', async () => {
    const text = await f.metricsText();
    expect(text).toMatch(
      /^sluice_provider_calls\{class="ambiguous",outcome="connection_dropped"\} \d+$/m,
    );
    expect(text).toMatch(/^sluice_provider_calls\{class="pollable",outcome="pending"\} \d+$/m);
    expect(text).toMatch(/^sluice_provider_calls\{class="-",outcome="authorised"\} 2$/m);
    expect(text).toMatch(/^sluice_jobs_in_review [1-9]\d*$/m);
    expect(text).toMatch(/^sluice_provider_calls_refused 0$/m);
  });

  it('approve refuses clearly when the review came from a fail-closed refusal: nothing to authorise', async () => {
    const c = f.http(f.keyA);
    const { database } = ctx();
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'fc' } });
    const epoch = await startJob(database, id);
    await recordCallIntent(database.db, {
      jobId: id,
      unitKey: 'u0',
      callName: 'undeclared',
      attemptId: 'a',
      epoch,
      stage: 'execute',
      provider: 'fake',
      modality: 'text',
      callClass: 'fail_closed',
      outcome: 'refused',
    });
    const parked = await database.transaction((tx) =>
      transitionJob(tx, { id, event: 'review', epoch, reason: 'call refused (fail-closed)' }),
    );
    expect(parked.ok).toBe(true);
    const refused = await errorOf(c.review.approve.mutate({ id, note: 'please' }));
    expect(refused.data).toMatchObject({ code: 'CONFLICT' });
    expect(refused.message).toMatch(/^nothing to authorise: .*fail-closed/);
    expect(await getJobById(database.db, id)).toMatchObject({ state: 'needs_review' });
    const outcomes = (await callsForJob(database.db, id)).map((r) => r.outcome);
    expect(outcomes).toEqual(['refused']);
  });
});
