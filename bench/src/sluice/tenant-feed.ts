// The fairness row's parent-side writer for the embedded runtime: a backlog of one tenant by the
// bulk prefill (the rows the accept path leaves), and single jobs of another tenant through
// `acceptJobs` (the accept path's own write, one commit each) while the workers run.
import { createHash } from 'node:crypto';
import { formatJobId } from '@sluice/contracts';
import { acceptJobs, openDatabase } from '@sluice/storage';
import type { JobPayload, TenantFeed } from '../adapter.js';
import { BENCH_KIND, BENCH_VERSION, benchJob } from './bench-job.js';
import { fillQueued } from './bulk-fill.js';

export async function embeddedTenantFeed(url: string): Promise<TenantFeed> {
  const database = openDatabase({ url, poolSize: 2 });
  return {
    async backlog(tenant, count, fromIndex) {
      await fillQueued({ url, database }, count, { from: fromIndex, tenant });
    },
    async submit(tenant: string, job: JobPayload) {
      const input = { i: job.i, t: job.t };
      const id = formatJobId(BENCH_VERSION);
      await acceptJobs(database, [
        {
          id,
          tenantId: tenant,
          kind: BENCH_KIND,
          version: BENCH_VERSION,
          input,
          inputHash: createHash('sha256').update(JSON.stringify(input)).digest('hex'),
          maxAttempts: benchJob.maxAttempts,
          outcome: { to: 'queued' },
        },
      ]);
    },
    async queued(tenant) {
      const row = await database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', '=', 'queued')
        .where('tenant_id', '=', tenant)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    close: () => database.close(),
  };
}
