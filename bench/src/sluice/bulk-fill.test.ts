// The prefill must leave exactly what the accept path leaves (job row, one row of two events), or
// row 5 would measure workers on rows no real submit produces. Compared column by column on both
// dialects, ids and times aside.
import { formatJobId } from '@sluice/contracts';
import { insertAcceptedJobs } from '@sluice/storage';
import { createPgDatabase, pgAvailable, type PgDatabase } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION, benchJob } from './bench-job.js';
import { fillQueued } from './bulk-fill.js';
import { prepareRunDatabase, type RunDatabase, type Storage } from './sluice-db.js';

const VOLATILE = new Set([
  'id',
  'job_id',
  'created_at',
  'updated_at',
  'available_at',
  'input_hash',
]);

function stable(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (VOLATILE.has(k)) continue;
    if (k === 'payload' && typeof v === 'string') {
      const strip = (e: Record<string, unknown>) => {
        const { jobId: _j, at: _a, ...rest } = e;
        return rest;
      };
      const parsed = JSON.parse(v) as Record<string, unknown> | Record<string, unknown>[];
      out[k] = Array.isArray(parsed) ? parsed.map(strip) : strip(parsed);
    } else out[k] = v;
  }
  return out;
}

describe('fillQueued', () => {
  let run: RunDatabase | undefined;
  let pgDb: PgDatabase | undefined;
  afterEach(async () => {
    await run?.dispose();
    await pgDb?.drop();
    run = undefined;
    pgDb = undefined;
  });

  it.each(['sqlite', 'postgres'] as Storage[])(
    'writes what the accept path (insertAcceptedJobs) writes (%s)',
    async (storage) => {
      if (storage === 'postgres') {
        if (!(await pgAvailable())) return;
        pgDb = await createPgDatabase({ prefix: 'sluice_bench_fill' });
      }
      run = await prepareRunDatabase(storage, pgDb?.url);
      const { database } = run;
      const [bulkId] = await fillQueued(run, 1, { from: 7 });
      const realId = formatJobId(BENCH_VERSION);
      await database.transaction((tx) =>
        insertAcceptedJobs(tx, [
          {
            id: realId,
            tenantId: BENCH_TENANT,
            kind: BENCH_KIND,
            version: BENCH_VERSION,
            input: { i: 7, t: 0 },
            inputHash: 'x',
            maxAttempts: benchJob.maxAttempts,
            outcome: { to: 'queued' },
          },
        ]),
      );
      const db = database.db;
      const bulk = await db.selectFrom('jobs').selectAll().where('id', '=', bulkId!).execute();
      const real = await db.selectFrom('jobs').selectAll().where('id', '=', realId).execute();
      expect(bulk.length).toBe(1);
      expect(bulk.map((r) => stable(r))).toEqual(real.map((r) => stable(r)));
      const events = (id: string) =>
        db.selectFrom('job_events').selectAll().where('job_id', '=', id).orderBy('seq').execute();
      expect((await events(bulkId!)).map((r) => stable(r))).toEqual(
        (await events(realId)).map((r) => stable(r)),
      );
    },
  );
});
