// Rows 1–3, parent side: Sluice's Valkey Streams runtime with its state in PostgreSQL. `prepare`
// leaves what the gateway's accept + dispatch path leaves once its outbox clean-up has run: N
// `bench.noop` jobs in `queued` with their two events in the suite's (truncated) database, and one
// message pointer per job in the job stream, XADDed in pipelines of 1,000 after the consumer group
// was created at `0` (exactly the gateway dispatcher's keys, group and fields: createStreamKeys,
// encodePointer, each pointer carrying its accepted row as the gateway's submit path sends it). The children (workers/sluice-streams.ts) run the real worker. After every run
// `verify` checks that every job reached `succeeded` and that the group has nothing pending.
import { Redis } from 'iovalkey';
import { encodePointer, snapshotWithInput } from '@sluice/contracts';
import { ACCEPTED_LAST_SEQ, isoNow } from '@sluice/storage';
import { sql } from 'kysely';
import type {
  BenchAdapter,
  BenchServices,
  PrepareSpec,
  PreparedRun,
  VerifyExpectation,
} from '../adapter.js';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION, benchJob } from './bench-job.js';
import { fillQueued } from './bulk-fill.js';
import { analyze, prepareRunDatabase, type RunDatabase } from './sluice-db.js';
import type { StreamsChildConfig } from './streams-config.js';
import { streamsTenantFeed } from './streams-tenant-feed.js';
import { createStreamKeys } from '@sluice/runtime-valkey-streams';

const WORKER_MODULE = new URL('../workers/sluice-streams.ts', import.meta.url).href;
const XADD_BATCH = 1_000;
/** The product's default pool; 4 × 10 stays inside the 40-connection budget graphile-worker has. */
const PG_POOL_PER_PROCESS = 10;
const CONNECTION_BUDGET = 40;

const keys = createStreamKeys();
export const BENCH_STREAM = keys.jobs(BENCH_KIND, BENCH_VERSION);

/** The pointers carry the rows as `fillQueued` wrote them, as the gateway's accept does. */
async function dispatchPointers(redis: Redis, ids: readonly string[], at: string): Promise<void> {
  await redis.xgroup('CREATE', BENCH_STREAM, keys.group, '0', 'MKSTREAM');
  const row = { epoch: 0, lastSeq: ACCEPTED_LAST_SEQ, attempts: 0, createdAt: at };
  for (let from = 0; from < ids.length; from += XADD_BATCH) {
    const pipeline = redis.pipeline();
    for (const [k, jobId] of ids.slice(from, from + XADD_BATCH).entries()) {
      const fields = encodePointer({
        jobId,
        kind: BENCH_KIND,
        version: BENCH_VERSION,
        tenantId: BENCH_TENANT,
        snapshot: snapshotWithInput(
          { ...row, maxAttempts: benchJob.maxAttempts },
          JSON.stringify({ i: from + k, t: 0 }),
        ),
      });
      pipeline.xadd(BENCH_STREAM, '*', ...fields);
    }
    const failed = (await pipeline.exec())?.find(([error]) => error);
    if (failed) throw failed[0] as Error;
  }
}

/** Pending entries of the group (XPENDING summary), 0 when the group does not exist. */
async function pendingCount(redis: Redis): Promise<number> {
  try {
    const reply = (await redis.call('XPENDING', BENCH_STREAM, keys.group)) as unknown[];
    return Number(reply[0] ?? 0);
  } catch (error) {
    if (/NOGROUP|no such key/i.test((error as Error).message)) return 0;
    throw error;
  }
}

/**
 * Redis commands per job since the prefill (`INFO commandstats`, reset after it): which commands
 * the run sent and how many, for the profile findings. Counts every client (workers, producer).
 */
async function commandsPerJob(redis: Redis, jobs: number): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  const out: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm))
    out[m[1] as string] = Math.round((1000 * Number(m[2])) / Math.max(1, jobs)) / 1000;
  return out;
}

/**
 * Every job succeeded, none missing, nothing pending in the group. A run the clock capped stopped
 * its workers mid-drain: every row is still there, at least the reported completions succeeded,
 * and no job ended any other way than `succeeded` (the rest are `queued` or `running`).
 */
async function verify(run: RunDatabase, redis: Redis, expected: VerifyExpectation) {
  const capped = expected.completed < expected.jobs;
  const redisCommandsPerJob = await commandsPerJob(redis, expected.completed);
  const rows = await sql<{ state: string; n: string }>`
    select state, count(*) as n from jobs group by state`.execute(run.database.db);
  const states: Record<string, number> = {};
  for (const r of rows.rows) states[r.state] = Number(r.n);
  const succeeded = states.succeeded ?? 0;
  const jobs = Object.values(states).reduce((a, b) => a + b, 0);
  const pending = await pendingCount(redis);
  const unfinished = (states.queued ?? 0) + (states.running ?? 0);
  const ok =
    jobs === expected.jobs &&
    (capped
      ? succeeded >= expected.completed && succeeded + unfinished === jobs
      : succeeded === jobs && pending === 0);
  return { ok, capped, expected, jobs, succeeded, states, pending, redisCommandsPerJob };
}

async function prepare(services: BenchServices, spec: PrepareSpec): Promise<PreparedRun> {
  if (!services.redis || !services.pg) throw new Error('sluice-streams needs redis and postgres');
  const run = await prepareRunDatabase('postgres', services.pg.url);
  const redis = new Redis({ host: services.redis.host, port: services.redis.port });
  redis.on('error', () => undefined);
  const dispose = async () => {
    redis.disconnect();
    await run.dispose();
  };
  try {
    const at = isoNow();
    const ids = await fillQueued(run, spec.jobs, { at });
    // Different servers: the statistics and the pointers can be written at the same time.
    await Promise.all([
      analyze(run.database),
      ids.length > 0 ? dispatchPointers(redis, ids, at) : undefined,
    ]);
    await redis.config('RESETSTAT');
  } catch (error) {
    await dispose();
    throw error;
  }
  const child: StreamsChildConfig = {
    redisUrl: services.redis.url,
    pgUrl: run.url,
    poolSize: Math.max(
      2,
      Math.min(PG_POOL_PER_PROCESS, Math.floor(CONNECTION_BUDGET / spec.processes)),
    ),
    // Latency runs start empty: the children stamp dispatch and commit times for them.
    latency: spec.jobs === 0 && !spec.fairness,
  };
  return {
    child: { ...child },
    verify: (expected) => verify(run, redis, expected),
    cleanup: dispose,
  };
}

export const sluiceStreams: BenchAdapter = {
  id: 'sluice-streams',
  label: 'Sluice Streams (state in PostgreSQL)',
  needs: ['redis', 'postgres'],
  packages: ['@sluice/worker', '@sluice/storage', 'iovalkey', 'pg'],
  durableWork:
    'PostgreSQL, synchronous commit: the job row (inserted at accept with its outbox row and one ' +
    'event row), then ONE fenced UPDATE to succeeded and ONE job_events row holding running, the ' +
    'unit and the end; a no-op unit that made no provider call stores no checkpoint (it costs ' +
    'nothing to run again). Redis (no persistence): the dispatch pointer and the live status ' +
    'events, a transport rebuilt from PostgreSQL.',
  queue: {
    consumerModule: WORKER_MODULE,
    producerModule: WORKER_MODULE,
    prepare,
    databaseCost: true,
    tenantFeed: (_services, prepared) => streamsTenantFeed(prepared.child),
  },
};
