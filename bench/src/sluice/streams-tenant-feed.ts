// The fairness row's parent side for the Valkey Streams runtime: the gateway's own dispatch half
// (createStreamsDispatcher with bounded depth, its held outbox rows, and the fair feeder) in the
// parent process, so A's backlog waits in PostgreSQL, not in the stream. A's backlog: the bulk
// prefill's queued rows, then ONE post-commit dispatch of all of them (what fits goes in, the
// rest is held). B's jobs: the accept path's own write (one commit each), then its dispatch.
import { createHash } from 'node:crypto';
import { Redis } from 'iovalkey';
import { formatJobId } from '@sluice/contracts';
import { acceptJobs, holdInOutbox, openDatabase } from '@sluice/storage';
import type { JobPayload, TenantFeed } from '../adapter.js';
import { BENCH_KIND, BENCH_VERSION, benchJob } from './bench-job.js';
import { fillQueued } from './bulk-fill.js';
import { parseStreamsChildConfig } from './streams-config.js';
import {
  createFairFeeder,
  createStreamsDispatcher,
  DEFAULT_MAX_UNDELIVERED,
} from '@sluice/runtime-valkey-streams';

const DISPATCH_CHUNK = 1_000;

export async function streamsTenantFeed(child: Record<string, unknown>): Promise<TenantFeed> {
  const cfg = parseStreamsChildConfig(child);
  const database = openDatabase({ url: cfg.pgUrl, poolSize: 4, notifyEvents: false });
  const redis = new Redis(cfg.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  const dispatcher = createStreamsDispatcher({
    redis,
    maxUndelivered: DEFAULT_MAX_UNDELIVERED,
    hold: (ids) => holdInOutbox(database.db, ids),
  });
  const feeder = createFairFeeder({ database, dispatcher, redis });
  feeder.start();
  const pointer = (jobId: string, tenantId: string) => ({
    jobId,
    kind: BENCH_KIND,
    version: BENCH_VERSION,
    tenantId,
  });
  return {
    async backlog(tenant, count, fromIndex) {
      const ids = await fillQueued({ url: cfg.pgUrl, database }, count, {
        from: fromIndex,
        tenant,
      });
      for (let i = 0; i < ids.length; i += DISPATCH_CHUNK) {
        await dispatcher.dispatch(
          ids.slice(i, i + DISPATCH_CHUNK).map((id) => pointer(id, tenant)),
        );
      }
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
      await dispatcher.dispatch([pointer(id, tenant)]);
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
    async close() {
      await feeder.close();
      redis.disconnect();
      await database.close();
    },
  };
}
