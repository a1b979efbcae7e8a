// The group-commit writer must leave exactly what the row-by-row accept path leaves (insertJob +
// transitionJob: the same job row, the same two events read back), or workers, watchers and the
// reconciler would see different jobs depending on how busy the gateway was; its two events share
// one row. It also must skip, not fail, a job whose idempotency key is taken.
import { formatJobId } from '@sluice/contracts';
import { expect } from 'vitest';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import {
  acceptJobs,
  findByIdempotencyKeys,
  idempotencyRefKey,
  ownedFileRefs,
  type AcceptedJob,
} from './accept-jobs.js';
import { listEvents } from './events.js';
import { insertFile, newFileId } from './files.js';
import { getJobById, insertJob, transitionJob } from './jobs.js';

const job = (over: Partial<AcceptedJob> = {}): AcceptedJob => ({
  id: formatJobId('v1'),
  tenantId: 'acme',
  kind: 'a.b',
  version: 'v1',
  input: { text: 'hi', n: [1, 2] },
  inputHash: 'h1',
  idempotencyKey: null,
  fileIds: [],
  maxAttempts: 3,
  outcome: { to: 'queued' },
  ...over,
});

/** The suite, for every database (accept-jobs.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function acceptJobsCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
  it('writes the rows and events of insertJob + transitionJob, for queued, scheduled and dead-lettered', async () => {
    const { database } = ctx();
    const db = database.db;
    const now = Date.parse('2026-01-02T03:04:05.678Z');
    const cases: AcceptedJob['outcome'][] = [
      { to: 'queued' },
      { to: 'scheduled', runAt: '2026-01-02T03:05:00.000Z' },
      { to: 'dead_lettered', reason: 'VERSION_NOT_ROUTABLE', detail: 'no handler for v1' },
    ];
    for (const outcome of cases) {
      const traceContext = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const a = job({ outcome, idempotencyKey: `k-${outcome.to}`, fileIds: ['f_1'], traceContext });
      const b = job({ ...a, id: formatJobId('v1'), tenantId: 'other' });
      const written = await acceptJobs(database, [a], now);
      expect([...written.inserted]).toEqual([a.id]);
      await repoWrite(database, async (tx) => {
        await insertJob(tx, b, now);
        if (outcome.to === 'queued') await transitionJob(tx, { id: b.id, event: 'dispatch' }, now);
        else if (outcome.to === 'scheduled')
          await transitionJob(tx, { id: b.id, event: 'schedule', runAfter: outcome.runAt }, now);
        else
          await transitionJob(
            tx,
            { id: b.id, event: 'dead_letter', reason: outcome.reason, detail: outcome.detail },
            now,
          );
      });
      const [ra, rb] = [await getJobById(db, a.id), await getJobById(db, b.id)];
      expect({ ...ra, id: '', tenantId: '' }).toEqual({ ...rb, id: '', tenantId: '' });
      expect(ra?.traceContext).toBe(traceContext);
      expect(ra?.state).toBe(outcome.to);
      expect(ra?.runAfter).toBe(outcome.to === 'scheduled' ? outcome.runAt : null);
      const strip = (events: unknown[]) => events.map((e) => ({ ...(e as object), jobId: '' }));
      const [ea, eb] = [await listEvents(db, a.id), await listEvents(db, b.id)];
      expect(ea).toHaveLength(2);
      expect(strip(ea)).toEqual(strip(eb));
      expect(written.events.map((e) => [e.event.jobId, e.event.seq, e.tenantId])).toEqual([
        [a.id, 1, 'acme'],
        [a.id, 2, 'acme'],
      ]);
      const rows = await db
        .selectFrom('job_events')
        .select(['id', 'seq', 'seq_end', 'type'])
        .where('job_id', '=', a.id)
        .execute();
      // Both events in ONE row (seq 1..2), typed after the last one; both carry its id.
      expect(rows.map((r) => [r.seq, r.seq_end, r.type])).toEqual([[1, 2, ea[1]?.type]]);
      expect(written.events.map((e) => e.id)).toEqual([Number(rows[0]?.id), Number(rows[0]?.id)]);
    }
  });

  it('skips a job whose idempotency key is stored already, writing the others', async () => {
    const { database } = ctx();
    const taken = job({ idempotencyKey: 'taken' });
    await acceptJobs(database, [taken]);
    const again = job({ idempotencyKey: 'taken', inputHash: 'other' });
    const free = [job(), job({ idempotencyKey: 'free' })];
    const written = await acceptJobs(database, [
      free[0] as AcceptedJob,
      again,
      free[1] as AcceptedJob,
    ]);
    expect([...written.inserted].sort()).toEqual(free.map((j) => j.id).sort());
    expect(written.events).toHaveLength(4);
    expect(await getJobById(database.db, again.id)).toBeUndefined();
    expect(await listEvents(database.db, again.id)).toEqual([]);
    // Two jobs of one key in one statement: the first is written, the second skipped.
    const [x, y] = [job({ idempotencyKey: 'twice' }), job({ idempotencyKey: 'twice' })];
    const both = await acceptJobs(database, [x, y]);
    expect([...both.inserted]).toEqual([x.id]);
  });

  it('writes more jobs than one statement holds', async () => {
    const { database } = ctx();
    const many = Array.from({ length: 600 }, () => job());
    const written = await acceptJobs(database, many);
    expect(written.inserted.size).toBe(600);
    expect(written.events).toHaveLength(1200);
    expect(new Set(written.events.map((e) => e.id)).size).toBe(600);
  });

  it("with `outbox`, the queued jobs' outbox rows land in the jobs' own batch, and only theirs", async () => {
    const { database } = ctx();
    const db = database.db;
    const queued = job();
    const dead = job({ outcome: { to: 'dead_lettered', reason: 'VERSION_NOT_ROUTABLE' } });
    const later = job({ outcome: { to: 'scheduled', runAt: '2030-01-01T00:00:00.000Z' } });
    await acceptJobs(database, [job({ idempotencyKey: 'outbox-taken' })]);
    const duplicate = job({ idempotencyKey: 'outbox-taken' });
    const written = await acceptJobs(database, [queued, dead, later, duplicate], Date.now(), {
      outbox: true,
    });
    expect(written.outboxWritten).toBe(true);
    const ids = [queued, dead, later, duplicate].map((j) => j.id);
    const rows = await db
      .selectFrom('outbox')
      .select('job_id')
      .where('job_id', 'in', ids)
      .execute();
    expect(rows.map((r) => r.job_id)).toEqual([queued.id]);
    // `outboxScheduled` (a runtime whose run waits for the due time): the scheduled job's too.
    const sleeper = job({ outcome: { to: 'scheduled', runAt: '2030-01-01T00:00:00.000Z' } });
    await acceptJobs(database, [sleeper], Date.now(), { outbox: true, outboxScheduled: true });
    const mine = await db
      .selectFrom('outbox')
      .select('job_id')
      .where('job_id', '=', sleeper.id)
      .execute();
    expect(mine).toHaveLength(1);
  });

  it('finds stored jobs by (tenant, key) and files by owner', async () => {
    const { database } = ctx();
    const db = database.db;
    const mine = job({ idempotencyKey: 'find-me' });
    await acceptJobs(database, [mine]);
    const found = await findByIdempotencyKeys(db, [
      { tenantId: 'acme', key: 'find-me' },
      { tenantId: 'globex', key: 'find-me' },
      { tenantId: 'acme', key: 'nope' },
    ]);
    expect([...found.keys()]).toEqual([idempotencyRefKey({ tenantId: 'acme', key: 'find-me' })]);
    expect(found.values().next().value?.id).toBe(mine.id);

    const file = await insertFile(db, {
      id: newFileId(),
      tenantId: 'acme',
      blobKey: `b-${mine.id}`,
      size: 1,
      sha256: 'x',
      contentType: 'text/plain',
      filename: null,
      createdAt: new Date().toISOString(),
      expiresAt: null,
    });
    const owned = await ownedFileRefs(db, [
      { tenantId: 'acme', fileId: file.id },
      { tenantId: 'globex', fileId: file.id },
      { tenantId: 'acme', fileId: 'f_missing' },
    ]);
    expect([...owned]).toEqual([`acme\u0000${file.id}`]);
  });
  done();
}
