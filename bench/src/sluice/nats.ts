// Rows 1–3, parent side: Sluice's NATS JetStream runtime with its state in PostgreSQL, on the
// suite's private `nats-server -js` (file store). `prepare` leaves what the gateway's accept +
// dispatch path leaves once its outbox clean-up has run: N `bench.noop` jobs in `queued` with
// their two events in the suite's (truncated) database, and one pointer per job in the run's
// work-queue stream, published by the gateway's own dispatcher (createNatsDispatcher) under a
// prefix of its own, so no run inherits another's stream or consumer. The children
// (workers/sluice-nats.ts) run the real worker. `verify` checks that every job reached
// `succeeded` and that the stream holds nothing (a work queue drops a message on its ack).
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { createNatsDispatcher, createNatsNames, type NatsNames } from '@sluice/runtime-nats';
import { sql } from 'kysely';
import type {
  BenchAdapter,
  BenchServices,
  PrepareSpec,
  PreparedRun,
  VerifyExpectation,
} from '../adapter.js';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION } from './bench-job.js';
import { fillQueued } from './bulk-fill.js';
import type { NatsChildConfig } from './nats-config.js';
import { analyze, prepareRunDatabase, type RunDatabase } from './sluice-db.js';

const WORKER_MODULE = new URL('../workers/sluice-nats.ts', import.meta.url).href;
const PUBLISH_BATCH = 1_000;
/** As the Streams row: the product's default pool, inside the 40-connection budget. */
const PG_POOL_PER_PROCESS = 10;
const CONNECTION_BUDGET = 40;

/** What the work-queue stream still holds of the bench kind (dispatched, not acknowledged). */
async function outstanding(jsm: JetStreamManager, names: NatsNames): Promise<number> {
  const info = await jsm.streams
    .info(names.jobsStream, { subjects_filter: names.kindSubjects(BENCH_KIND) })
    .catch(() => undefined);
  const subjects = (info?.state.subjects ?? {}) as Record<string, number>;
  return Object.values(subjects).reduce((a, b) => a + b, 0);
}

/** As the Streams row's check: a capped run left only `queued`/`running` beside `succeeded`. */
async function verify(
  run: RunDatabase,
  jsm: JetStreamManager,
  names: NatsNames,
  expected: VerifyExpectation,
) {
  const capped = expected.completed < expected.jobs;
  const rows = await sql<{ state: string; n: string }>`
    select state, count(*) as n from jobs group by state`.execute(run.database.db);
  const states: Record<string, number> = {};
  for (const r of rows.rows) states[r.state] = Number(r.n);
  const succeeded = states.succeeded ?? 0;
  const jobs = Object.values(states).reduce((a, b) => a + b, 0);
  const pending = await outstanding(jsm, names);
  const unfinished = (states.queued ?? 0) + (states.running ?? 0);
  const ok =
    jobs === expected.jobs &&
    (capped
      ? succeeded >= expected.completed && succeeded + unfinished === jobs
      : succeeded === jobs && pending === 0);
  return { ok, capped, expected, jobs, succeeded, states, pending };
}

async function prepare(services: BenchServices, spec: PrepareSpec): Promise<PreparedRun> {
  if (!services.nats || !services.pg) throw new Error('sluice-nats needs nats and postgres');
  const run = await prepareRunDatabase('postgres', services.pg.url);
  // Stream and consumer names take the prefix: letters, digits, `_` only.
  const names = createNatsNames(`bench_${spec.runId.replace(/[^A-Za-z0-9]/g, '_')}`);
  let nc: NatsConnection | undefined;
  const dispose = async () => {
    if (nc) {
      const jsm = await jetstreamManager(nc);
      // The run's streams (and with them its consumer): the store does not grow run after run.
      for (const stream of [names.jobsStream, names.deadStream])
        await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    }
    await run.dispose();
  };
  let jsm: JetStreamManager;
  try {
    nc = await connect({ servers: services.nats.url.replace(/^nats:\/\//, ''), name: 'bench' });
    jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const dispatcher = createNatsDispatcher({ names, client: async () => ({ js, jsm }) });
    const ids = await fillQueued(run, spec.jobs);
    const publish = async () => {
      for (let from = 0; from < ids.length; from += PUBLISH_BATCH)
        await dispatcher.dispatch(
          ids.slice(from, from + PUBLISH_BATCH).map((jobId) => ({
            jobId,
            kind: BENCH_KIND,
            version: BENCH_VERSION,
            tenantId: BENCH_TENANT,
          })),
        );
    };
    // Different servers: the statistics and the pointers can be written at the same time.
    await Promise.all([analyze(run.database), ids.length > 0 ? publish() : undefined]);
  } catch (error) {
    await dispose();
    throw error;
  }
  const child: NatsChildConfig = {
    natsUrl: services.nats.url,
    prefix: names.prefix,
    pgUrl: run.url,
    poolSize: Math.max(
      2,
      Math.min(PG_POOL_PER_PROCESS, Math.floor(CONNECTION_BUDGET / spec.processes)),
    ),
    latency: spec.jobs === 0 && !spec.fairness,
  };
  return {
    child: { ...child },
    verify: (expected) => verify(run, jsm, names, expected),
    // nats-server's CPU and disk writes: the report's engine column (the Streams row has Redis).
    enginePids: [services.nats.pid],
    cleanup: dispose,
  };
}

export const sluiceNats: BenchAdapter = {
  id: 'sluice-nats',
  label: 'Sluice NATS JetStream (state in PostgreSQL)',
  needs: ['nats', 'postgres'],
  packages: [
    '@sluice/worker',
    '@sluice/storage',
    '@nats-io/transport-node',
    '@nats-io/jetstream',
    'pg',
  ],
  durableWork:
    'PostgreSQL, synchronous commit: the job row (inserted at accept with its outbox row and one ' +
    'event row), then the fenced UPDATE to succeeded and its job_events row, as the Streams row. ' +
    'NATS JetStream (file store): the dispatch pointer in a work-queue stream, and per delivery ' +
    'an owner record in a KV bucket (written on hand-out, deleted on finish).',
  queue: {
    consumerModule: WORKER_MODULE,
    producerModule: WORKER_MODULE,
    prepare,
    databaseCost: true,
    engineServer: true,
  },
};
