// Run recovery on the Node gateway's Workflows runtime, status by status, through the real REST
// client against the local fake of Cloudflare's API (testing/fake-workflows-api.ts) and a real
// job database on both dialects: what a lost run becomes (restarted or created under a new epoch,
// dead-lettered with its reason), what is left alone, and that a pass is bounded. Jobs are made
// quiet by running the pass "later" (`now`), never by waiting.
import { RUN_STATUSES } from '@sluice/contracts';
import { createReconciler, decideRunRecovery, recoverLostRuns } from '@sluice/gateway';
import {
  appendAttemptEvents,
  getJobById,
  transitionJob,
  type SluiceDatabase,
} from '@sluice/storage';
import { describeEachDialect, queuedTestJob, runningTestJob } from '@sluice/storage/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWorkflowsApi, type FakeWorkflowsApi } from '../testing/fake-workflows-api.js';
import { createWorkflowsRestDispatcher } from './create-workflows-rest-dispatcher.js';

const ACCOUNT = 'acc123';
const TOKEN = 'tok-test';
const WF = 'echo-v1';
/** Two minutes on: every job made in a test is quiet past the default 60 s bound. */
const later = () => Date.now() + 120_000;

describe('the decision table', () => {
  const job = { state: 'running' as const, attempts: 1, maxAttempts: 3 };
  const decide = (status: (typeof RUN_STATUSES)[number], quietForMs = 120_000) =>
    decideRunRecovery({ status, job, quietForMs, stuckMs: 600_000 });
  it('every status has one answer for a running job with budget left', () => {
    expect(Object.fromEntries(RUN_STATUSES.map((s) => [s, decide(s).kind]))).toEqual({
      queued: 'leave',
      running: 'leave',
      waiting: 'leave',
      paused: 'leave',
      errored: 'redispatch',
      terminated: 'redispatch',
      complete: 'redispatch',
      not_found: 'redispatch',
      unknown: 'leave',
    });
    expect(decide('not_found')).toEqual({ kind: 'redispatch', via: 'create' });
    expect(decide('errored')).toEqual({ kind: 'redispatch', via: 'restart' });
    expect(decide('running', 600_000)).toEqual({ kind: 'redispatch', via: 'restart' });
    expect(decide('paused', 6_000_000)).toEqual({ kind: 'leave' });
  });
});

describeEachDialect('run recovery over the Workflows REST API', (ctx) => {
  let fake: FakeWorkflowsApi;
  const db = () => ctx().database as SluiceDatabase;
  const dispatcher = () =>
    createWorkflowsRestDispatcher({
      database: db(),
      accountId: ACCOUNT,
      apiToken: TOKEN,
      apiBase: fake.url,
      workflows: { v1: WF },
      maxTries: 2,
      backoffMs: 1,
    });
  beforeAll(async () => {
    fake = await startFakeWorkflowsApi({ accountId: ACCOUNT, apiToken: TOKEN });
  });
  afterAll(async () => {
    await fake.close();
  });

  /** A running job (attempt 1) whose instance exists and reports `status`. */
  async function runningWithInstance(status: string, maxAttempts = 3) {
    const id = await queuedTestJob(db(), 'demo.echo', { maxAttempts });
    const started = await db().transaction((tx) => transitionJob(tx, { id, event: 'start' }));
    if (!started.ok) throw new Error('start failed');
    await dispatcher().dispatch([
      { jobId: id, kind: 'demo.echo', version: 'v1', tenantId: 'acme' },
    ]);
    fake.setStatus(WF, id, status);
    return started.job;
  }
  const pass = (options = {}) =>
    recoverLostRuns({ database: db(), runtime: dispatcher(), now: later(), options });

  for (const status of ['errored', 'terminated', 'complete']) {
    it(`${status}: the dead attempt is fenced and the instance restarted; its start opens a new epoch`, async () => {
      const job = await runningWithInstance(status);
      await pass();
      const after = await getJobById(db().db, job.id);
      expect(after).toMatchObject({ state: 'queued', epoch: job.epoch, attempts: 1 });
      expect(fake.instances.get(`${WF}/${job.id}`)).toMatchObject({
        status: 'queued',
        restarts: 1,
      });
      // The old attempt can write nothing more...
      const zombie = await db().transaction((tx) =>
        appendAttemptEvents(tx, job.id, job.epoch, [{ type: 'progress', data: { late: true } }]),
      );
      expect(zombie).toBeUndefined();
      // ...and the restarted run's start is the next epoch.
      const restarted = await db().transaction((tx) =>
        transitionJob(tx, { id: job.id, event: 'start' }),
      );
      expect(restarted.ok && restarted.job.epoch).toBe(job.epoch + 1);
    });
  }

  it('not found: the instance is created (a running job fenced first; a queued one as it is)', async () => {
    const running = await runningTestJob(db(), 'demo.echo');
    const queued = await queuedTestJob(db(), 'demo.echo');
    await pass();
    expect(fake.instances.has(`${WF}/${running.id}`)).toBe(true);
    expect(fake.instances.has(`${WF}/${queued}`)).toBe(true);
    expect((await getJobById(db().db, running.id))?.state).toBe('queued');
    expect((await getJobById(db().db, queued))?.state).toBe('queued');
  });

  it('running, queued, waiting, paused: left alone; running quiet past the stuck bound: restarted', async () => {
    const live = await Promise.all(
      ['running', 'queued', 'waiting', 'paused'].map((s) => runningWithInstance(s)),
    );
    await pass();
    for (const job of live) {
      expect(await getJobById(db().db, job.id)).toMatchObject({
        state: 'running',
        epoch: job.epoch,
      });
      expect(fake.instances.get(`${WF}/${job.id}`)?.restarts).toBeUndefined();
    }
    await pass({ stuckMs: 60_000 });
    const [running, , waiting, paused] = live.map((j) => fake.instances.get(`${WF}/${j.id}`));
    expect(running?.restarts).toBe(1);
    expect([waiting?.restarts, paused?.restarts]).toEqual([undefined, undefined]);
  });

  it('a spent budget: dead-lettered MAX_ATTEMPTS with the reason, never restarted', async () => {
    const job = await runningWithInstance('errored', 1);
    await pass();
    const after = await getJobById(db().db, job.id);
    expect(after).toMatchObject({ state: 'dead_lettered', reason: 'MAX_ATTEMPTS' });
    expect(fake.instances.get(`${WF}/${job.id}`)?.restarts).toBeUndefined();
  });

  it('an API that does not answer: the job is left as it is, asked again next pass', async () => {
    const job = await runningWithInstance('errored');
    fake.fail(503, 1_000);
    try {
      const stats = await pass({ pageSize: 1000 });
      expect(stats.redispatched).toBe(0);
    } finally {
      fake.fail(200, 0);
    }
    expect(await getJobById(db().db, job.id)).toMatchObject({ state: 'running', epoch: job.epoch });
  });

  it('a pass is bounded: pageSize × maxPages jobs at most', async () => {
    await Promise.all([1, 2, 3].map(() => runningWithInstance('running')));
    const stats = await pass({ pageSize: 2, maxPages: 1 });
    expect(stats.inspected).toBe(2);
  });

  it('the reconciler runs it on a runtime with runs', async () => {
    const job = await runningWithInstance('errored');
    const reconciler = createReconciler({ database: db(), runtime: dispatcher(), tickMs: 50 });
    try {
      await reconciler.tick(later());
      expect(reconciler.stats.runsRecovered).toBeGreaterThanOrEqual(1);
      expect((await getJobById(db().db, job.id))?.state).toBe('queued');
    } finally {
      await reconciler.close();
    }
  });
});
