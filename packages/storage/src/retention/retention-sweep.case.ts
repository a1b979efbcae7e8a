// The retention pass on every database (retention-sweep.test.ts: SQLite and PostgreSQL with a
// local blob folder; workerd/storage-d1.test.ts: D1 with R2). Each case counts the rows of every
// table and the blobs before and after: expired ended jobs go with everything hanging off them,
// nothing else does (live, waiting-for-a-person, held and unexpired jobs, a file another job
// still uses), in bounded batches; a crash between any two steps leaves no row naming missing
// bytes and no bytes beyond one more pass; a failed archive write removes nothing.
import { createRetentionPolicy, formatJobId, parseRetentionSettings } from '@sluice/contracts';
import type { RetentionSettingsInput } from '@sluice/contracts';
import { beforeEach, expect } from 'vitest';
import { isoNow } from '../json.js';
import type { BlobStore } from '../blobs/blob-store.js';
import { acceptJobs, findByIdempotencyKeys, idempotencyRefKey } from '../repos/accept-jobs.js';
import { setJobHold } from '../repos/job-hold.js';
import {
  blobIntegrity,
  blobKeys,
  countRows,
  RETENTION_SUITE_TABLES,
  seedFile,
  seedJob,
} from '../testing/retention-seed.js';
import { suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { retentionOverview } from './retention-groups.js';
import { removeBatch } from './retention-remove.js';
import { sweepRetention, type RetentionStep } from './retention-sweep.js';

const DAY = 86_400_000;
const KINDS = {
  'demo.keep': {},
  'demo.week': { retention: { succeeded: 7 * DAY } },
  'demo.forever': { retention: { succeeded: null } },
};
const policyOf = (settings: RetentionSettingsInput = {}) =>
  createRetentionPolicy(KINDS, parseRetentionSettings(settings));

let n = 0;
const tenant = () => `ret${Date.now().toString(36)}${n++}`;

export function retentionSweepCases(
  label: string,
  ctx: () => SuiteDatabase,
  blobStore: () => BlobStore,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
  const db = () => ctx().database.db;

  beforeEach(async () => {
    // The pass removes every tenant's expired jobs: start each case from empty tables.
    for (const table of [...RETENTION_SUITE_TABLES].reverse())
      await db().deleteFrom(table).execute();
  });

  it('removes expired ended jobs with everything hanging off them, and nothing else', async () => {
    const now = Date.now();
    const t = tenant();
    const blobs = blobStore();
    const shared = await seedFile(db(), blobs, t, now);
    const own = await seedFile(db(), blobs, t, now);
    const seed = (s: Omit<Parameters<typeof seedJob>[2], 'tenant' | 'now'>) =>
      seedJob(db(), blobs, { tenant: t, now, ...s });
    const expired = [
      await seed({ state: 'succeeded', ageMs: 8 * DAY, fileIds: [shared.id] }),
      await seed({ state: 'dead_lettered', ageMs: 31 * DAY, fileIds: [own.id] }),
      await seed({ state: 'cancelled', ageMs: 31 * DAY }),
      await seed({ state: 'stale', ageMs: 31 * DAY }),
      await seed({ state: 'failed', ageMs: 31 * DAY }),
    ];
    const kept = [
      await seed({ state: 'succeeded', ageMs: 6 * DAY }),
      await seed({ state: 'failed', ageMs: 29 * DAY, fileIds: [shared.id] }),
      await seed({ state: 'succeeded', ageMs: 100 * DAY, hold: true }),
      ...(await Promise.all(
        (['accepted', 'scheduled', 'queued', 'running', 'needs_review'] as const).map((state) =>
          seed({ state, ageMs: 1000 * DAY }),
        ),
      )),
    ];
    const rowsBefore = await countRows(db(), [t]);
    const keysBefore = await blobKeys(blobs, [t]);
    expect(rowsBefore.job_files).toBe(3); // the trigger linked every referenced upload
    expect(rowsBefore.job_tags).toBe(13); // and indexed every job's labels
    expect(rowsBefore.job_meta).toBe(13);

    const result = await sweepRetention({
      database: ctx().database,
      blobs,
      policy: policyOf(),
      now,
      pauseMs: 0,
    });

    expect(result).toMatchObject({ jobs: 5, batches: 5, complete: true, blobs: 11 });
    expect(result.byState).toEqual({
      succeeded: 1,
      failed: 1,
      cancelled: 1,
      dead_lettered: 1,
      stale: 1,
    });
    expect(await countRows(db(), [t])).toEqual({
      jobs: rowsBefore.jobs - 5,
      job_events: rowsBefore.job_events - 10,
      units: rowsBefore.units - 10,
      provider_calls: rowsBefore.provider_calls - 5,
      asset_owners: rowsBefore.asset_owners - 5,
      assets: rowsBefore.assets - 5,
      outbox: rowsBefore.outbox - 5,
      files: rowsBefore.files - 1, // the upload only a removed job used; the shared one stays
      job_files: rowsBefore.job_files - 2,
      flow_keys: rowsBefore.flow_keys - 5,
      flow_waiting: rowsBefore.flow_waiting - 4,
      job_tags: rowsBefore.job_tags - 5,
      job_meta: rowsBefore.job_meta - 5,
      retention_marks: 0,
      retention_blobs: 0,
    });
    const gone = new Set([...expired.flatMap((j) => j.keys), own.key]);
    const keysAfter = await blobKeys(blobs, [t]);
    expect([...keysBefore].filter((k) => !keysAfter.has(k)).sort()).toEqual([...gone].sort());
    expect(keysAfter.has(shared.key)).toBe(true);
    expect(await blobIntegrity(db(), blobs, [t])).toEqual({ dangling: [], unknown: [], queued: 0 });
    const left = await db().selectFrom('jobs').select('id').where('tenant_id', '=', t).execute();
    expect(left.map((r) => r.id).sort()).toEqual(kept.map((j) => j.id).sort());
  });

  it('precedence: a tenant rule over the kind, the kind over the default', async () => {
    const now = Date.now();
    const [plain, short] = [tenant(), tenant()];
    const blobs = blobStore();
    const seed = (tenantId: string, kind: string, ageMs: number) =>
      seedJob(db(), blobs, { tenant: tenantId, kind, state: 'succeeded', ageMs, now, full: false });
    const removed = [
      await seed(plain, 'demo.keep', 3 * DAY), // default 2 d
      await seed(short, 'demo.forever', 2 * 3_600_000), // tenant 1 h beats the kind's forever
    ];
    await seed(plain, 'demo.week', 3 * DAY); // the kind's 7 d beats the default
    await seed(plain, 'demo.forever', 400 * DAY);
    await seed(short, 'demo.keep', 30 * 60_000);
    const policy = policyOf({
      default: { succeeded: '2d' },
      tenants: { [short]: { succeeded: '1h' } },
    });
    const result = await sweepRetention({
      database: ctx().database,
      blobs,
      policy,
      now,
      pauseMs: 0,
    });
    expect(result.jobs).toBe(2);
    const left = await db().selectFrom('jobs').select('id').execute();
    expect(left.map((r) => r.id)).not.toContain(removed[0]!.id);
    expect(left.map((r) => r.id)).not.toContain(removed[1]!.id);
    expect(left).toHaveLength(3);
  });

  it('removes in bounded batches with a pause between them, and a pass stops at maxBatches', async () => {
    const now = Date.now();
    const t = tenant();
    const blobs = blobStore();
    for (let i = 0; i < 8; i++)
      await seedJob(db(), blobs, {
        tenant: t,
        state: 'failed',
        ageMs: 40 * DAY + i,
        now,
        full: false,
      });
    const pauses: number[] = [];
    const opts = {
      database: ctx().database,
      blobs,
      policy: policyOf(),
      now,
      batchSize: 3,
      maxBatches: 2,
      pauseMs: 7,
      sleep: async (ms: number) => void pauses.push(ms),
    };
    expect(await sweepRetention(opts)).toMatchObject({ batches: 2, jobs: 6, complete: false });
    expect(pauses).toEqual([7]);
    expect((await countRows(db(), [t])).jobs).toBe(2);
    expect(await sweepRetention(opts)).toMatchObject({ batches: 1, jobs: 2, complete: true });
    expect((await countRows(db(), [t])).jobs).toBe(0);
  });

  for (const step of ['archived', 'rows-removed', 'blobs-deleted'] as RetentionStep[]) {
    it(`a crash after "${step}" leaves no row naming missing bytes, and the next pass finishes`, async () => {
      const now = Date.now();
      const t = tenant();
      const blobs = blobStore();
      const file = await seedFile(db(), blobs, t, now);
      const gone = [
        await seedJob(db(), blobs, {
          tenant: t,
          state: 'succeeded',
          ageMs: 9 * DAY,
          now,
          fileIds: [file.id],
        }),
        await seedJob(db(), blobs, { tenant: t, state: 'failed', ageMs: 40 * DAY, now }),
      ];
      const kept = await seedJob(db(), blobs, { tenant: t, state: 'succeeded', ageMs: DAY, now });
      const before = await countRows(db(), [t]);
      const crash = async (at: RetentionStep) => {
        if (at === step) throw new Error(`crash after ${step}`);
      };
      await expect(
        sweepRetention({
          database: ctx().database,
          blobs,
          policy: policyOf(),
          now,
          archive: true,
          pauseMs: 0,
          hooks: { afterStep: crash },
        }),
      ).rejects.toThrow(`crash after ${step}`);
      const mid = await blobIntegrity(db(), blobs, [t]);
      expect(mid.dangling).toEqual([]);
      expect(mid.unknown).toEqual([]); // every blob is named by a row or queued
      const rows = await countRows(db(), [t]);
      if (step === 'archived') expect(rows).toEqual(before);
      else expect(rows.jobs).toBe(before.jobs - 1); // the first batch (one state) went whole
      if (step !== 'archived') expect(rows.retention_blobs).toBeGreaterThan(0);

      await sweepRetention({
        database: ctx().database,
        blobs,
        policy: policyOf(),
        now,
        pauseMs: 0,
      });
      const after = await countRows(db(), [t]);
      expect(after).toMatchObject({
        jobs: 1,
        files: 0,
        job_files: 0,
        retention_blobs: 0,
        retention_marks: 0,
      });
      const keys = await blobKeys(blobs, [t]);
      for (const k of [...gone.flatMap((j) => j.keys), file.key]) expect(keys.has(k)).toBe(false);
      for (const k of kept.keys) expect(keys.has(k)).toBe(true);
      expect(await blobIntegrity(db(), blobs, [t])).toMatchObject({ dangling: [], unknown: [] });
    });
  }

  it('archives each removed job as JSONL first; a failed archive write removes nothing', async () => {
    const now = Date.now();
    const t = tenant();
    const blobs = blobStore();
    const jobs = [
      await seedJob(db(), blobs, { tenant: t, state: 'succeeded', ageMs: 9 * DAY, now }),
      await seedJob(db(), blobs, { tenant: t, state: 'succeeded', ageMs: 10 * DAY, now }),
    ];
    const before = await countRows(db(), [t]);
    const refusing: BlobStore = {
      ...blobs,
      put: (key, body, opts) =>
        key.startsWith('archive/')
          ? Promise.reject(new Error('store unavailable'))
          : blobs.put(key, body, opts),
    };
    const opts = { database: ctx().database, policy: policyOf(), now, archive: true, pauseMs: 0 };
    await expect(sweepRetention({ ...opts, blobs: refusing })).rejects.toThrow('store unavailable');
    expect(await countRows(db(), [t])).toEqual(before);

    const result = await sweepRetention({ ...opts, blobs });
    expect(result.jobs).toBe(2);
    const day = isoNow(now).slice(0, 10);
    expect(result.archived).toHaveLength(1);
    expect(result.archived[0]).toMatch(
      new RegExp(`^archive/${t}/${day}/[0-9]+-[a-z2-7]+\\.jsonl$`),
    );
    const text = await new Response(await blobs.get(result.archived[0]!)).text();
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.job.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    for (const l of lines) {
      expect(l.job).toMatchObject({ tenant_id: t, state: 'succeeded', input: { n: 1 } });
      expect(l.events.map((e: { seq: number }) => Number(e.seq))).toEqual([1, 3]);
      expect(l.providerCalls).toHaveLength(1);
      expect(l.units.map((u: { unit_key: string }) => u.unit_key)).toEqual(['u0', 'u1']);
    }
  });

  it('a job that moved after it was read, or was held, is not removed (the fence)', async () => {
    const now = Date.now();
    const t = tenant();
    const blobs = blobStore();
    const a = await seedJob(db(), blobs, { tenant: t, state: 'failed', ageMs: 40 * DAY, now });
    const b = await seedJob(db(), blobs, { tenant: t, state: 'failed', ageMs: 40 * DAY, now });
    const read = await db()
      .selectFrom('jobs')
      .select(['id', 'tenant_id', 'kind', 'state', 'updated_at'])
      .where('tenant_id', '=', t)
      .execute();
    // a is requeued and fails again (a new updated_at); b is put under a legal hold
    await db()
      .updateTable('jobs')
      .set({ updated_at: isoNow(now - 35 * DAY) })
      .where('id', '=', a.id)
      .execute();
    expect(await setJobHold(db(), t, b.id, true)).toEqual({ id: b.id, hold: true });
    const before = await countRows(db(), [t]);
    const removed = await removeBatch(ctx().database, read, policyOf().states, now);
    expect(removed.jobs).toEqual([]);
    expect(await countRows(db(), [t])).toEqual(before);
    // lifting the hold makes b removable at once: its clock never restarted
    await setJobHold(db(), t, b.id, false);
    const r = await sweepRetention({
      database: ctx().database,
      blobs,
      policy: policyOf(),
      now,
      pauseMs: 0,
    });
    expect(r.jobs).toBe(2);
    expect(await setJobHold(db(), t, b.id, true)).toBeUndefined();
  });

  it('an idempotency key expires with its job: the same key then creates a new job', async () => {
    const now = Date.now();
    const t = tenant();
    const blobs = blobStore();
    const old = await seedJob(db(), blobs, {
      tenant: t,
      state: 'succeeded',
      ageMs: 8 * DAY,
      now,
      idempotencyKey: 'once',
    });
    const ref = { tenantId: t, key: 'once' };
    expect((await findByIdempotencyKeys(db(), [ref])).get(idempotencyRefKey(ref))?.id).toBe(old.id);
    await sweepRetention({ database: ctx().database, blobs, policy: policyOf(), now, pauseMs: 0 });
    expect((await findByIdempotencyKeys(db(), [ref])).size).toBe(0);
    const fresh = {
      id: formatJobId('v1'),
      tenantId: t,
      kind: 'demo.keep',
      version: 'v1',
      input: {},
      inputHash: 'h2',
      idempotencyKey: 'once',
      maxAttempts: 3,
      outcome: { to: 'queued' as const },
    };
    const written = await acceptJobs(ctx().database, [fresh]);
    expect([...written.inserted]).toEqual([fresh.id]);
  });

  it('the overview: the oldest removable job and how overdue the sweep is', async () => {
    const now = Date.now();
    const t = tenant();
    const blobs = blobStore();
    await seedJob(db(), blobs, {
      tenant: t,
      state: 'succeeded',
      ageMs: 10 * DAY,
      now,
      full: false,
    });
    await seedJob(db(), blobs, { tenant: t, state: 'succeeded', ageMs: DAY, now, full: false });
    await seedJob(db(), blobs, { tenant: t, state: 'running', ageMs: 50 * DAY, now, full: false });
    const policy = policyOf();
    expect(await retentionOverview(db(), policy, now)).toEqual({
      oldestAgeMs: 10 * DAY,
      lagMs: 3 * DAY,
      expiredGroups: 1,
    });
    await sweepRetention({ database: ctx().database, blobs, policy, now, pauseMs: 0 });
    expect(await retentionOverview(db(), policy, now)).toEqual({
      oldestAgeMs: DAY,
      lagMs: 0,
      expiredGroups: 0,
    });
  });

  done();
}
