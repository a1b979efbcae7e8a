// Catches a lost wakeup: a signal whose transaction runs between a wait's "is a signal there?"
// check and the suspend write would find the job still running (nothing to resume) while the
// suspend then finds no signal — the job waits forever. Both sides write-then-check under the
// job row's lock, so every race below ends with the job either never suspended (the wait took
// the signal) or resumed by the signal. Also: a signal before the wait, the timeout, idempotent
// sends, the sweep, and the fence.

import { expect, it } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { describeEachDialect } from '../testing/dialects.js';
import { getJobById } from '../repos/jobs.js';
import { runningTestJob } from '../testing/test-jobs.js';
import { registerWait, type WaitRequest } from './register-wait.js';
import { sendSignal } from './signals.js';
import { settleCandidates, sweepCandidates } from './due-waits.js';
import { getWait } from './wait-rows.js';

const runningJob = (database: SluiceDatabase) => runningTestJob(database, 'x.waits');

function waitOn(
  job: { id: string; epoch: number; lastSeq: number },
  over: Partial<WaitRequest> = {},
) {
  return {
    jobId: job.id,
    fence: { epoch: job.epoch, lastSeq: job.lastSeq },
    waitKey: 'event:approved#1',
    kind: 'event',
    event: 'approved',
    ...over,
  } satisfies WaitRequest;
}

const signal = (database: SluiceDatabase, jobId: string, payload: unknown, signalId?: string) =>
  database.transaction((tx) =>
    sendSignal(tx, { tenantId: 'acme', jobId, name: 'approved', payload, signalId }),
  );

describeEachDialect('durable waits', (ctx) => {
  it('no lost wakeup: a signal racing the suspend always ends with the job resumed or never suspended (100 races)', async () => {
    const { database } = ctx();
    // A second handle where writers run side by side (PostgreSQL); SQLite's synchronous driver
    // would block its own thread on a second in-process handle, and one handle is one writer.
    const other = database.capabilities.concurrentWriters ? ctx().open() : database;
    for (let i = 0; i < 100; i++) {
      const job = await runningJob(database);
      // Who asks first alternates: on SQLite (one writer) that is the order they commit in; on
      // PostgreSQL both are in flight at once on their own connections.
      const waiting = () => registerWait(database, waitOn(job));
      const sending = () => signal(other, job.id, { ok: i });
      const [wait, sent] =
        i % 2 === 0
          ? await Promise.all([waiting(), sending()])
          : await Promise.all([sending(), waiting()]).then(([s, w]) => [w, s] as const);
      const row = await getJobById(database.db, job.id);
      if (wait.kind === 'settled') {
        expect(wait.value).toEqual({ ok: i });
        expect(row?.state).toBe('running');
      } else {
        expect(wait.kind).toBe('suspended');
        expect(sent.kind === 'stored' && sent.delivered).toBe(true);
        expect(row?.state).toBe('queued');
        expect((await getWait(database.db, job.id, 'event:approved#1'))?.result).toEqual({ ok: i });
      }
    }
  }, 120_000);

  it('a signal sent before the wait is kept and taken by the wait without suspending', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const sent = await signal(database, job.id, { by: 'ann' });
    expect(sent).toMatchObject({ kind: 'stored', delivered: false, isDuplicate: false });
    const wait = await registerWait(database, waitOn(job));
    expect(wait).toEqual({ kind: 'settled', status: 'resolved', value: { by: 'ann' } });
  });

  it('a suspend refunds the attempt and a resend with the same signal id stores nothing', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const wait = await registerWait(database, waitOn(job));
    expect(wait.kind).toBe('suspended');
    const waiting = await getJobById(database.db, job.id);
    expect(waiting).toMatchObject({ state: 'waiting', reason: 'event:approved', attempts: 0 });
    expect(await signal(database, job.id, 1, 'sig-1')).toMatchObject({ delivered: true });
    expect(await signal(database, job.id, 2, 'sig-1')).toMatchObject({
      isDuplicate: true,
      delivered: true,
    });
    expect((await getWait(database.db, job.id, 'event:approved#1'))?.result).toBe(1);
  });

  it('a zombie attempt is fenced: a wait at an old epoch writes nothing', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const wait = await registerWait(database, waitOn({ ...job, epoch: job.epoch - 1 }));
    expect(wait).toEqual({ kind: 'fenced' });
    expect(await getWait(database.db, job.id, 'event:approved#1')).toBeUndefined();
    expect((await getJobById(database.db, job.id))?.state).toBe('running');
  });

  it('the sweep times a wait out and queues the job with its stage in the same transaction', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const now = Date.now();
    const dueAt = new Date(now + 1000).toISOString();
    expect((await registerWait(database, waitOn(job, { dueAt }))).kind).toBe('suspended');
    expect(await sweepCandidates(database.db, now, 100)).not.toContainEqual({
      jobId: job.id,
      waitKey: 'event:approved#1',
    });
    const later = now + 1500;
    const candidates = await sweepCandidates(database.db, later, 100);
    const staged: string[] = [];
    const r = await settleCandidates(
      database,
      candidates.filter((c) => c.jobId === job.id),
      async (_tx, pointers) => {
        staged.push(...pointers.map((p) => p.jobId));
      },
      later,
    );
    expect(r.resumed.map((p) => p.jobId)).toEqual([job.id]);
    expect(staged).toEqual([job.id]);
    expect(await getWait(database.db, job.id, 'event:approved#1')).toMatchObject({
      status: 'timed_out',
    });
    expect((await getJobById(database.db, job.id))?.state).toBe('queued');
  });
});
