// Catches a bulk terminal write that lets a zombie through or mixes attempts up: in ONE batch, a
// live attempt's events and transition are stored in order, while an attempt at an old epoch and
// one whose job was cancelled change nothing (their events are dropped, their rows reported as
// found); a delayed retry gets its outbox row only when its transition applied.
import { formatJobId } from '@sluice/contracts';
import {
  dueOutbox,
  getJobById,
  insertJob,
  isoIn,
  listEvents,
  transitionJob,
  type JobRow,
  type SluiceDatabase,
} from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { writeTerminalBatch } from './terminal-batch.js';

async function runningJob(database: SluiceDatabase): Promise<JobRow> {
  const id = formatJobId('v1');
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId: 'acme',
      kind: 'x.terminal',
      version: 'v1',
      input: {},
      inputHash: 'h',
      maxAttempts: 3,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
  });
  const r = await database.transaction((tx) => transitionJob(tx, { id, event: 'start' }));
  if (!r.ok) throw new Error('start failed');
  return r.job;
}

describeEachDialect('writeTerminalBatch', (ctx) => {
  it('stores live attempts and fences the others, each on its own', async () => {
    const { database } = ctx();
    const [live, zombie, cancelled, retried] = [
      await runningJob(database),
      await runningJob(database),
      await runningJob(database),
      await runningJob(database),
    ];
    // zombie's job was taken over (a new epoch); cancelled's job was cancelled.
    await database.transaction((tx) =>
      transitionJob(tx, { id: zombie.id, event: 'reclaim', epoch: zombie.epoch, leaseMs: 0 }),
    );
    await database.transaction((tx) => transitionJob(tx, { id: cancelled.id, event: 'cancel' }));
    const progress = (n: number) => ({ type: 'progress' as const, data: n });
    const now = Date.now();
    const { written, committed } = await database.transaction((tx) =>
      writeTerminalBatch(
        tx,
        [
          {
            request: { id: live.id, epoch: live.epoch, event: 'succeed', output: { ok: 1 } },
            events: [progress(1), { type: 'unit_done', unitKey: 'u0' }],
          },
          {
            request: { id: zombie.id, epoch: zombie.epoch, event: 'succeed', output: 'late' },
            events: [progress(2)],
          },
          {
            request: {
              id: cancelled.id,
              epoch: cancelled.epoch,
              event: 'fail',
              error: { kind: 'sluice', code: 'INTERNAL', message: 'x' },
            },
            events: [],
          },
          {
            request: {
              id: retried.id,
              epoch: retried.epoch,
              event: 'retry',
              error: { kind: 'sluice', code: 'INTERNAL', message: 'again' },
              runAfter: isoIn(60_000, now),
            },
            events: [progress(3)],
            outboxDelayMs: 60_000,
          },
        ],
        now,
      ),
    );
    expect(written.map((w) => [w.ok, w.job?.state])).toEqual([
      [true, 'succeeded'],
      [false, 'running'],
      [false, 'cancelled'],
      [true, 'queued'],
    ]);
    expect(written[1]?.job?.epoch).toBe(zombie.epoch + 1);
    const liveEvents = await listEvents(database.db, live.id);
    expect(liveEvents.slice(3).map((e) => [e.seq, e.type])).toEqual([
      [4, 'progress'],
      [5, 'unit_done'],
      [6, 'state'],
    ]);
    expect((await getJobById(database.db, live.id))?.output).toEqual({ ok: 1 });
    // Nothing of the zombie or of the cancelled job's attempt was written.
    expect((await listEvents(database.db, zombie.id)).map((e) => e.type)).toEqual([
      'state',
      'state',
      'state',
      'state',
    ]);
    expect((await getJobById(database.db, zombie.id))?.output).toBeNull();
    expect((await listEvents(database.db, cancelled.id)).at(-1)).toMatchObject({
      to: 'cancelled',
    });
    expect((await listEvents(database.db, retried.id)).slice(3).map((e) => e.type)).toEqual([
      'progress',
      'state',
    ]);
    expect(committed.map((e) => [e.event.jobId, e.event.seq]).sort()).toEqual(
      [
        [live.id, 4],
        [live.id, 5],
        [live.id, 6],
        [retried.id, 4],
        [retried.id, 5],
      ].sort(),
    );
    expect(await dueOutbox(database.db, isoIn(120_000, now))).toEqual([retried.id]);
  });
});
