// Catches an attempt write that lands partly (events, units or an outbox row of a fenced write),
// lets a fence through (another epoch, another last_seq, another state, a live holder's lease,
// another kind or tenant than the row's: an attempt started from a pointer never read the row),
// numbers events wrongly, or splits what must be one row of events.
import { formatJobId, randomToken, type JobEvent } from '@sluice/contracts';
import { expect } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { isoIn, isoNow } from '../json.js';
import { eventsByIds, eventsSince, listEvents } from '../repos/events.js';
import { getJobById, insertJob, transitionJob } from '../repos/jobs.js';
import { transitionEvent } from '../repos/transition-event.js';
import { getUnits } from '../repos/units.js';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { writeAttempts, type AttemptWrite } from './attempt-write.js';
import { loadSnapshots, type JobSnapshot } from './job-snapshot.js';

async function queued(database: SluiceDatabase, kind = 'w.job'): Promise<JobSnapshot> {
  const id = formatJobId('v1');
  await repoWrite(database, async (tx) => {
    await insertJob(tx, {
      id,
      tenantId: 'acme',
      kind,
      version: 'v1',
      input: { n: 1 },
      inputHash: 'h',
      maxAttempts: 3,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
  });
  return (await loadSnapshots(database, [id])).get(id) as JobSnapshot;
}

const at = () => isoNow();
const progress = (jobId: string, seq: number, n: number): JobEvent =>
  ({ type: 'progress', jobId, seq, at: at(), data: { n } }) as JobEvent;

/** The write that starts `job` (queued → running) with `extra` events after the `running` one. */
function startWrite(job: JobSnapshot, extra: number, owner = 'w1'): AttemptWrite {
  const s = job.lastSeq;
  const events: JobEvent[] = [
    transitionEvent(job.id, s + 1, at(), job.state, 'running', job.attempts + 1, {}),
  ];
  for (let i = 0; i < extra; i++) events.push(progress(job.id, s + 2 + i, i));
  return {
    id: job.id,
    tenantId: job.tenantId,
    kind: job.kind,
    fence: { epoch: job.epoch, lastSeq: s, state: 'queued' },
    state: 'running',
    epoch: job.epoch + 1,
    attempts: job.attempts + 1,
    attemptId: randomToken(),
    leaseUntil: isoIn(30_000),
    leaseOwner: owner,
    events,
  };
}

/** The same write carried on to `succeeded` in one go (a job that never wrote before it ended). */
function startAndSucceed(job: JobSnapshot): AttemptWrite {
  const w = startWrite(job, 1);
  const seq = job.lastSeq + 3;
  return {
    ...w,
    state: 'succeeded',
    leaseUntil: null,
    leaseOwner: null,
    output: { ok: true },
    error: null,
    events: [
      ...w.events,
      transitionEvent(job.id, seq, at(), 'running', 'succeeded', w.attempts, {}),
    ],
    units: [{ unitKey: 'unit:a', result: { value: 1 } }],
  };
}

async function counts(database: SluiceDatabase, id: string) {
  const db = database.db;
  const n = async (table: 'job_events' | 'units' | 'outbox') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('job_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { events: await n('job_events'), units: await n('units'), outbox: await n('outbox') };
}

/** The suite, for every database (attempt-write.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function attemptWriteCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
  it('starts and finishes a job in one write: one event row holding every event, in order', async () => {
    const { database } = ctx();
    const job = await queued(database);
    const w = startAndSucceed(job);
    const r = await writeAttempts(database, [w]);
    expect(r.applied).toEqual([true]);
    const row = await getJobById(database.db, job.id);
    expect(row).toMatchObject({
      state: 'succeeded',
      epoch: job.epoch + 1,
      attempts: job.attempts + 1,
      attemptId: w.attemptId,
      lastSeq: job.lastSeq + 3,
      output: { ok: true },
      leaseUntil: null,
    });
    expect(row?.finishedAt).not.toBeNull();
    const before = await counts(database, job.id);
    expect(before).toEqual({ events: 3, units: 1, outbox: 0 }); // accepted, queued + ONE row
    const events = await listEvents(database.db, job.id);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'state'],
      [2, 'state'],
      [3, 'state'],
      [4, 'progress'],
      [5, 'state'],
    ]);
    expect(await listEvents(database.db, job.id, 3)).toEqual(events.slice(3));
    // every event of the row carries the row's id; the global readers expand it the same way
    expect(new Set(r.events.map((e) => e.id)).size).toBe(1);
    expect(r.events.map((e) => e.event)).toEqual(w.events);
    const id = r.events[0]?.id as number;
    expect((await eventsByIds(database.db, [id])).map((e) => e.event)).toEqual(w.events);
    expect((await eventsSince(database.db, id - 1)).map((e) => e.event)).toEqual(w.events);
    expect((await getUnits(database.db, job.id)).get('unit:a')?.result).toEqual({ value: 1 });
  });

  it('a fenced write lands nothing: another epoch, last_seq, state, kind or tenant', async () => {
    const { database } = ctx();
    for (const spoil of ['epoch', 'lastSeq', 'cancelled', 'kind', 'tenant'] as const) {
      const job = await queued(database);
      const w = startAndSucceed(job);
      const write: AttemptWrite = {
        ...w,
        outboxDueAt: isoIn(1000),
        units: [{ unitKey: 'unit:a', result: 1 }],
        fence: spoil === 'epoch' ? { ...w.fence, epoch: w.fence.epoch + 1 } : w.fence,
        ...(spoil === 'kind' ? { kind: 'w.other' } : {}),
        ...(spoil === 'tenant' ? { tenantId: 'globex' } : {}),
      };
      if (spoil === 'cancelled')
        await repoWrite(database, (tx) => transitionJob(tx, { id: job.id, event: 'cancel' }));
      if (spoil === 'lastSeq')
        await database.db
          .updateTable('jobs')
          .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
          .where('id', '=', job.id)
          .execute();
      const before = await counts(database, job.id);
      const row = await getJobById(database.db, job.id);
      expect(await writeAttempts(database, [write])).toEqual({ applied: [false], events: [] });
      expect(await counts(database, job.id)).toEqual(before);
      expect(await getJobById(database.db, job.id)).toEqual(row);
      expect((await getJobById(database.db, job.id))?.state).toBe(
        spoil === 'cancelled' ? 'cancelled' : 'queued',
      );
    }
  });

  it('start, then progress with a unit, then a retry with its outbox row: each fenced by the last', async () => {
    const { database } = ctx();
    const job = await queued(database);
    const start = startWrite(job, 0);
    expect((await writeAttempts(database, [start])).applied).toEqual([true]);
    const s1 = job.lastSeq + 1;
    const running = { epoch: start.epoch, lastSeq: s1, state: 'running' as const };
    const flush: AttemptWrite = {
      ...start,
      fence: running,
      events: [progress(job.id, s1 + 1, 7)],
      units: [{ unitKey: 'unit:paid', result: { cents: 3 } }],
    };
    // the same flush against a stale last_seq (the start not counted) is refused
    const stale: AttemptWrite = {
      ...flush,
      fence: { ...running, lastSeq: s1 - 1 },
      events: [progress(job.id, s1, 7)],
    };
    expect((await writeAttempts(database, [stale])).applied).toEqual([false]);
    expect((await writeAttempts(database, [flush])).applied).toEqual([true]);
    const due = isoIn(5000);
    const retry: AttemptWrite = {
      ...start,
      fence: { ...running, lastSeq: s1 + 1 },
      state: 'queued',
      leaseUntil: null,
      leaseOwner: null,
      error: { kind: 'sluice', code: 'INTERNAL', message: 'again' },
      runAfter: due,
      outboxDueAt: due,
      events: [transitionEvent(job.id, s1 + 2, at(), 'running', 'queued', start.attempts, {})],
    };
    expect((await writeAttempts(database, [retry])).applied).toEqual([true]);
    expect(await counts(database, job.id)).toEqual({ events: 5, units: 1, outbox: 1 });
    expect(await getJobById(database.db, job.id)).toMatchObject({
      state: 'queued',
      lastSeq: s1 + 2,
      runAfter: due,
      error: { message: 'again' },
    });
  });

  it('a reclaim applies only once the holder lease has lapsed', async () => {
    const { database } = ctx();
    const job = await queued(database);
    const start = startWrite(job, 0);
    await writeAttempts(database, [{ ...start, leaseUntil: isoIn(60_000) }]);
    const snap = (await loadSnapshots(database, [job.id])).get(job.id) as JobSnapshot;
    const reclaim = (lapsed: boolean): AttemptWrite => ({
      ...startWrite(snap, 0, 'w2'),
      fence: { epoch: snap.epoch, lastSeq: snap.lastSeq, state: 'running', leaseLapsed: lapsed },
    });
    expect((await writeAttempts(database, [reclaim(true)])).applied).toEqual([false]);
    await database.db
      .updateTable('jobs')
      .set({ lease_until: isoIn(-1) })
      .where('id', '=', job.id)
      .execute();
    expect((await writeAttempts(database, [reclaim(true)])).applied).toEqual([true]);
    expect((await getJobById(database.db, job.id))?.epoch).toBe(snap.epoch + 1);
  });

  it('one job twice in a call (a zombie and its successor): the first applies, the second is fenced', async () => {
    const { database } = ctx();
    const job = await queued(database);
    const other = await queued(database);
    const a = startAndSucceed(job);
    const b = startAndSucceed(job);
    const r = await writeAttempts(database, [a, startAndSucceed(other), b]);
    expect(r.applied).toEqual([true, true, false]);
    expect((await getJobById(database.db, job.id))?.attemptId).toBe(a.attemptId);
  });

  it('two handles racing the same fence: exactly one write lands', async () => {
    const test = ctx();
    const second = test.open();
    const jobs = await Promise.all(Array.from({ length: 20 }, () => queued(test.database)));
    const [r1, r2] = await Promise.all([
      writeAttempts(test.database, jobs.map(startAndSucceed)),
      writeAttempts(second, jobs.map(startAndSucceed)),
    ]);
    jobs.forEach((_, i) => expect([r1.applied[i], r2.applied[i]].filter(Boolean)).toHaveLength(1));
    for (const job of jobs) expect((await counts(test.database, job.id)).events).toBe(3);
  });

  it('a round of plain finishes, and a round mixing them with units and an outbox row: every part lands, JSON values as sent', async () => {
    const { database } = ctx();
    // A plain finish (no units, no outbox row): what a Streams drain's rounds carry.
    const plain = async (output: unknown) => {
      const w = { ...startAndSucceed(await queued(database)), output, units: undefined };
      return w;
    };
    const output = {
      s: 'é ✓ \\ "q"',
      n: 1234567890.125,
      big: 2 ** 60,
      deep: [{ a: null }, true, 1.5],
    };
    const first = [await plain(output), await plain(null)];
    expect((await writeAttempts(database, first)).applied).toEqual([true, true]);
    const withUnits = startAndSucceed(await queued(database));
    const retry = {
      ...startWrite(await queued(database), 0),
      state: 'queued' as const,
      leaseUntil: null,
      leaseOwner: null,
      error: { kind: 'retry_after' as const, message: 'boom \u00e9', retryAfterMs: 5_000 },
      outboxDueAt: isoIn(5_000),
    };
    const mixed = [await plain({ i: 7 }), withUnits, retry];
    expect((await writeAttempts(database, mixed)).applied).toEqual([true, true, true]);
    for (const w of [...first, ...mixed]) {
      const row = await getJobById(database.db, w.id);
      expect(row?.state).toBe(w.state);
      expect(row?.output ?? null).toEqual(w.output ?? null);
      expect(await listEvents(database.db, w.id, 2)).toEqual(w.events);
    }
    expect((await getJobById(database.db, retry.id))?.error).toEqual(retry.error);
    expect(await counts(database, first[0]!.id)).toEqual({ events: 3, units: 0, outbox: 0 });
    expect(await counts(database, mixed[0]!.id)).toEqual({ events: 3, units: 0, outbox: 0 });
    expect(await counts(database, withUnits.id)).toEqual({ events: 3, units: 1, outbox: 0 });
    expect(await counts(database, retry.id)).toEqual({ events: 3, units: 0, outbox: 1 });
    expect((await getUnits(database.db, withUnits.id)).get('unit:a')?.result).toEqual({ value: 1 });
  });

  it('refuses events whose sequence numbers do not follow the fence', async () => {
    const { database } = ctx();
    const job = await queued(database);
    const w = startWrite(job, 1);
    const bad = { ...w, events: [w.events[1] as JobEvent, w.events[0] as JobEvent] };
    await expect(writeAttempts(database, [bad])).rejects.toThrow(/expected/);
    expect((await counts(database, job.id)).events).toBe(2);
  });
  done();
}
