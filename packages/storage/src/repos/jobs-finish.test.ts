// Catches a bulk finish that differs from the row-by-row path (appendAttemptEvents, then
// transitionJob) it replaces: the same rows and the same events for every kind of outcome, the
// same fence (another epoch, a job no longer running: nothing written), and a job named twice.
import { formatJobId, type JobError } from '@sluice/contracts';
import { expect, it } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { describeEachDialect } from '../testing/dialects.js';
import { listEvents } from './events.js';
import { finishAttempts, type FinishAttempt } from './jobs-finish.js';
import { appendAttemptEvents, getJobById, insertJob, transitionJob } from './jobs.js';

async function runningJob(database: SluiceDatabase) {
  const id = formatJobId('v1');
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId: 'acme',
      kind: 'x.finish',
      version: 'v1',
      input: {},
      inputHash: 'h',
      maxAttempts: 3,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
  });
  const r = await database.transaction((tx) =>
    transitionJob(tx, { id, event: 'start', leaseMs: 30_000 }),
  );
  if (!r.ok) throw new Error('start failed');
  return r.job;
}

const err = (message: string): JobError => ({ kind: 'sluice', code: 'INTERNAL', message });
const progress = (n: number) => ({ type: 'progress' as const, data: { n } });
type Case = Omit<FinishAttempt, 'request'> & {
  request: Omit<FinishAttempt['request'], 'id' | 'epoch'>;
  /** Fence it out: a wrong epoch, or the job cancelled first. */
  fenced?: 'epoch' | 'cancelled';
};

const CASES: Case[] = [
  {
    request: { event: 'succeed', output: { words: 3 }, error: null },
    events: [progress(1), { type: 'unit_done', unitKey: 'u0' }],
  },
  { request: { event: 'succeed', output: null, error: null }, events: [] },
  { request: { event: 'fail', error: err('boom') }, events: [progress(2)] },
  {
    request: { event: 'retry', error: err('again'), runAfter: '2030-01-01T00:00:00.000Z' },
    events: [],
  },
  {
    request: { event: 'retry', error: err('drain'), runAfter: null, reason: 'DRAINED' },
    events: [{ type: 'unit_done', unitKey: 'u1', reused: true }],
  },
  {
    request: {
      event: 'review',
      error: err('doubt'),
      reason: 'AMBIGUOUS',
      unitKey: 'u2',
      provider: 'tts',
    },
    events: [progress(3)],
  },
  {
    request: { event: 'dead_letter', error: err('max'), reason: 'MAX_ATTEMPTS' },
    events: [progress(4)],
  },
  { request: { event: 'stale', error: err('old'), reason: 'OLD' }, events: [] },
  { request: { event: 'succeed', output: 1 }, events: [progress(5)], fenced: 'epoch' },
  { request: { event: 'fail', error: err('x') }, events: [progress(6)], fenced: 'cancelled' },
];

describeEachDialect('finishAttempts', (ctx) => {
  it('stores what appendAttemptEvents + transitionJob store, row by row', async () => {
    const { database } = ctx();
    const now = Date.parse('2026-01-02T03:04:05.678Z');
    const setUp = async () => {
      const out: FinishAttempt[] = [];
      for (const c of CASES) {
        const job = await runningJob(database);
        if (c.fenced === 'cancelled')
          await database.transaction((tx) => transitionJob(tx, { id: job.id, event: 'cancel' }));
        const epoch = c.fenced === 'epoch' ? job.epoch + 1 : job.epoch;
        out.push({ request: { ...c.request, id: job.id, epoch }, events: c.events });
      }
      return out;
    };
    const oneByOne = await setUp();
    const expected = await database.transaction(async (tx) => {
      const oks: boolean[] = [];
      for (const a of oneByOne) {
        const appended = await appendAttemptEvents(
          tx,
          a.request.id,
          a.request.epoch,
          a.events,
          now,
        );
        oks.push(appended !== undefined && (await transitionJob(tx, a.request, now)).ok);
      }
      return oks;
    });
    const bulk = await setUp();
    const got = await database.transaction((tx) => finishAttempts(tx, bulk, now));
    expect(got.map((r) => r.ok)).toEqual(expected);
    expect(expected.filter(Boolean)).toHaveLength(CASES.length - 2);

    const strip = async (id: string) => {
      const row = await getJobById(database.db, id);
      if (!row) throw new Error(`job ${id} is gone`);
      const events = (await listEvents(database.db, id)).map((e) => ({ ...e, jobId: 'J' }));
      const { id: _id, attemptId: _a, createdAt: _c, inputHash: _h, ...rest } = row;
      // The setup's own transitions happened at wall-clock time; only the finish's are fixed.
      const nowIso = new Date(now).toISOString();
      const time = (t: string | null) => (t === null || t === nowIso ? t : 'setup');
      return {
        row: {
          ...rest,
          updatedAt: time(rest.updatedAt),
          leaseUntil: time(rest.leaseUntil),
          finishedAt: time(rest.finishedAt),
        },
        events: events.filter((e) => e.at === nowIso),
      };
    };
    for (const [i, a] of bulk.entries()) {
      const want = await strip((oneByOne[i] as FinishAttempt).request.id);
      const have = await strip(a.request.id);
      expect(have, CASES[i]?.request.event).toEqual(want);
      const r = got[i];
      if (r?.ok) expect(r.events.map((e) => ({ ...e.event, jobId: 'J' }))).toEqual(have.events);
    }
  });

  it('a job named twice: each attempt fenced on its own, events in sequence', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const got = await database.transaction((tx) =>
      finishAttempts(tx, [
        { request: { id: job.id, epoch: job.epoch, event: 'succeed', output: 1 }, events: [] },
        {
          request: { id: job.id, epoch: job.epoch, event: 'fail', error: err('late') },
          events: [progress(1)],
        },
      ]),
    );
    expect(got.map((r) => r.ok)).toEqual([true, false]);
    const events = await listEvents(database.db, job.id);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'state'],
      [2, 'state'],
      [3, 'state'],
      [4, 'state'],
    ]);
    expect((await getJobById(database.db, job.id))?.state).toBe('succeeded');
  });
});
