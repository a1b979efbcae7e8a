// Catches a bulk event append that differs from the row-by-row one: every attempt that still
// owns its running job gets its events with the job's next sequence numbers, in order; an
// attempt fenced out (other epoch, job no longer running) writes nothing and gets `undefined`;
// a job named twice in one call is appended to twice, each fenced on its own.
import { formatJobId } from '@sluice/contracts';
import { expect, it } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { describeEachDialect } from '../testing/dialects.js';
import { listEvents } from './events.js';
import { appendAttemptEventsMany } from './jobs-append.js';
import { getJobById, insertJob, transitionJob } from './jobs.js';

async function runningJob(database: SluiceDatabase) {
  const id = formatJobId('v1');
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId: 'acme',
      kind: 'x.append',
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

describeEachDialect('appendAttemptEventsMany', (ctx) => {
  it('appends per attempt, fenced per attempt, with each job’s next sequence numbers', async () => {
    const { database } = ctx();
    const [a, b, c, d] = [
      await runningJob(database),
      await runningJob(database),
      await runningJob(database),
      await runningJob(database),
    ];
    await database.transaction((tx) =>
      transitionJob(tx, { id: c.id, event: 'succeed', epoch: c.epoch, output: null }),
    );
    const progress = (n: number) => ({ type: 'progress' as const, data: { n } });
    const out = await database.transaction((tx) =>
      appendAttemptEventsMany(tx, [
        { id: a.id, epoch: a.epoch, events: [progress(1), progress(2)] },
        { id: b.id, epoch: b.epoch, events: [{ type: 'unit_done', unitKey: 'u0' }] },
        { id: c.id, epoch: c.epoch, events: [progress(3)] },
        { id: d.id, epoch: d.epoch + 1, events: [progress(4)] },
        { id: a.id, epoch: a.epoch, events: [progress(5)] },
        { id: b.id, epoch: b.epoch, events: [] },
      ]),
    );
    expect(out.map((r) => r?.map((s) => s.event.seq))).toEqual([
      [4, 5],
      [4],
      undefined,
      undefined,
      [6],
      [],
    ]);
    expect(out[1]?.[0]).toMatchObject({ tenantId: 'acme', kind: 'x.append' });
    const aEvents = await listEvents(database.db, a.id);
    expect(aEvents.map((e) => [e.seq, e.type === 'progress' ? e.data : e.type])).toEqual([
      [1, 'state'],
      [2, 'state'],
      [3, 'state'],
      [4, { n: 1 }],
      [5, { n: 2 }],
      [6, { n: 5 }],
    ]);
    expect((await getJobById(database.db, a.id))?.lastSeq).toBe(6);
    expect((await listEvents(database.db, b.id)).at(-1)).toMatchObject({
      seq: 4,
      type: 'unit_done',
      unitKey: 'u0',
    });
    expect(await listEvents(database.db, c.id)).toHaveLength(4);
    expect(await listEvents(database.db, d.id)).toHaveLength(3);
    expect((await getJobById(database.db, d.id))?.lastSeq).toBe(3);
  });

  it('carries more attempts and events than one statement holds', async () => {
    const { database } = ctx();
    const jobs = [
      await runningJob(database),
      await runningJob(database),
      await runningJob(database),
    ];
    const many = Array.from({ length: 2500 }, (_, n) => ({ type: 'progress' as const, data: n }));
    const out = await database.transaction((tx) =>
      appendAttemptEventsMany(
        tx,
        jobs.map((j) => ({ id: j.id, epoch: j.epoch, events: many })),
      ),
    );
    expect(out.map((r) => r?.length)).toEqual([2500, 2500, 2500]);
    const events = await listEvents(database.db, (jobs[2] as (typeof jobs)[number]).id, 0, 5000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
    expect(events.at(-1)).toMatchObject({ seq: 2503, data: 2499 });
  });
});
