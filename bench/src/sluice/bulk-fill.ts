// Untimed prefill: N `bench.noop` jobs in `queued` with their two events and their queue rows,
// exactly what the accept path (insertJob, transitionJob dispatch, enqueue) leaves behind, but
// written 500 jobs per statement (the per-job path costs four round trips a job; 20,000 jobs on
// PostgreSQL would take longer than the drain).
import { createHash } from 'node:crypto';
import { formatJobId, type MessagePointer } from '@sluice/contracts';
import {
  enqueue,
  insertEvents,
  isoNow,
  toJson,
  transitionEvent,
  type SluiceDatabase,
} from '@sluice/storage';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION, benchJob } from './bench-job.js';

const CHUNK = 500;

export interface FillOptions {
  /** First payload index (default 0). */
  from?: number;
  /** Leave the jobs out of the embedded queue (rows 6–8 have no worker). */
  queue?: boolean;
}

/** Inserts `count` queued jobs; returns their ids in payload order. */
export async function fillQueued(
  database: SluiceDatabase,
  count: number,
  opts: FillOptions = {},
): Promise<string[]> {
  const from = opts.from ?? 0;
  const ids: string[] = [];
  for (let start = 0; start < count; start += CHUNK) {
    const size = Math.min(CHUNK, count - start);
    const at = isoNow();
    const jobs = Array.from({ length: size }, (_, k) => {
      const input = { i: from + start + k, t: 0 };
      return { id: formatJobId(BENCH_VERSION), input };
    });
    await database.transaction(async (tx) => {
      await tx
        .insertInto('jobs')
        .values(
          jobs.map((j) => ({
            id: j.id,
            tenant_id: BENCH_TENANT,
            kind: BENCH_KIND,
            version: BENCH_VERSION,
            state: 'queued',
            input: toJson(j.input),
            output: null,
            error: null,
            reason: null,
            idempotency_key: null,
            input_hash: createHash('sha256').update(toJson(j.input)).digest('hex'),
            file_ids: toJson([]),
            attempts: 0,
            max_attempts: benchJob.maxAttempts,
            epoch: 0,
            attempt_id: null,
            last_seq: 2,
            run_after: null,
            lease_until: null,
            created_at: at,
            updated_at: at,
            finished_at: null,
          })),
        )
        .execute();
      await insertEvents(
        tx,
        jobs.flatMap((j) =>
          [
            transitionEvent(j.id, 1, at, null, 'accepted', 0, {}),
            transitionEvent(j.id, 2, at, 'accepted', 'queued', 0, {}),
          ].map((event) => ({ tenantId: BENCH_TENANT, kind: BENCH_KIND, event })),
        ),
      );
      if (opts.queue !== false) {
        const pointers: MessagePointer[] = jobs.map((j) => ({
          jobId: j.id,
          tenantId: BENCH_TENANT,
          kind: BENCH_KIND,
          version: BENCH_VERSION,
        }));
        await enqueue(tx, pointers);
      }
    });
    for (const j of jobs) ids.push(j.id);
  }
  return ids;
}
