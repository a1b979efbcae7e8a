// Delayed jobs on Cloudflare Workflows (`delaysInRun`): the instance is created at submit and
// sleeps until the job's due time (`sluice:due`) before its start step moves the D1 row
// scheduled → running. A cancel while it sleeps (the D1 transition, then terminate(), as the
// Workers gateway does) means the job never runs. Real engine, real D1.
import { beforeAll, describe, expect, it } from 'vitest';
import { transitionJob } from '@sluice/storage/d1';
import { createWorkflowRouter } from '../src/worker/router.js';
import { bindings } from './bindings.js';
import {
  database,
  eventsOf,
  executions,
  jobRow,
  prepareDatabase,
  queuedJob,
  runsOf,
  waitForStatus,
} from './helpers.js';

const router = createWorkflowRouter({
  database,
  workflows: { v1: bindings.WF_V1, v2: bindings.WF_V2 },
  deadLetters: bindings.DLQ,
});

beforeAll(prepareDatabase);

const DELAY_MS = 1500;

describe('delayed jobs on Workflows', () => {
  it('a delayed job stays scheduled until its due time, starts no earlier, then succeeds', async () => {
    const due = Date.now() + DELAY_MS;
    const p = await queuedJob('v1', { units: 2 }, new Date(due).toISOString());
    await router.dispatch(p);
    // The instance exists and waits; the row says scheduled and nothing ran.
    await new Promise((r) => setTimeout(r, 400));
    expect(await jobRow(p.jobId)).toMatchObject({ state: 'scheduled' });
    expect(await executions(p.jobId)).toEqual({});
    const status = await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored']);
    expect(status.status).toBe('complete');
    expect(await jobRow(p.jobId)).toMatchObject({ state: 'succeeded' });
    expect(await executions(p.jobId)).toEqual({ u0: 1, u1: 1 });
    const states = (await eventsOf(p.jobId)).filter((e) => e.type === 'state');
    // History as on every runtime: scheduled, due (→ queued), start (→ running), the end.
    expect(states.map((e) => `${e.from}>${e.to}`)).toEqual([
      'null>accepted',
      'accepted>scheduled',
      'scheduled>queued',
      'queued>running',
      'running>succeeded',
    ]);
    const running = states.find((e) => e.to === 'running');
    expect(Date.parse(running?.at ?? '')).toBeGreaterThanOrEqual(due);
  });

  it('a delayed job cancelled while it sleeps never runs: the row stays cancelled', async () => {
    const p = await queuedJob('v1', { units: 1 }, new Date(Date.now() + DELAY_MS).toISOString());
    await router.dispatch(p);
    expect((await transitionJob(database.db, { id: p.jobId, event: 'cancel' })).ok).toBe(true);
    await (await bindings.WF_V1.get(p.jobId)).terminate();
    await waitForStatus(bindings.WF_V1, p.jobId, ['terminated']);
    await new Promise((r) => setTimeout(r, DELAY_MS + 500));
    expect(await jobRow(p.jobId)).toMatchObject({ state: 'cancelled' });
    expect(await executions(p.jobId)).toEqual({});
    expect((await eventsOf(p.jobId)).some((e) => e.type === 'state' && e.to === 'running')).toBe(
      false,
    );
  });

  it('cancelled in D1 only (no terminate): the woken run skips its start and writes nothing', async () => {
    const p = await queuedJob('v1', { units: 1 }, new Date(Date.now() + DELAY_MS).toISOString());
    await router.dispatch(p);
    expect((await transitionJob(database.db, { id: p.jobId, event: 'cancel' })).ok).toBe(true);
    const before = await jobRow(p.jobId);
    const status = await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored']);
    expect(status).toMatchObject({ status: 'complete', output: { state: 'cancelled' } });
    expect(await jobRow(p.jobId)).toMatchObject({ state: 'cancelled', lastSeq: before?.lastSeq });
    expect(await executions(p.jobId)).toEqual({});
    expect(await runsOf(p.jobId)).toBeGreaterThanOrEqual(1);
  });
});
