// Untimed prefill: N `bench.noop` jobs in `queued` with their two events in one row, exactly
// what the accept path (insertAcceptedJobs) leaves behind; the embedded queue is the jobs table
// (bulk-fill.test.ts compares them column by column on both dialects). Written with the drivers
// directly, not kysely: building 20,000 jobs' values through the query builder took 2–10 s here,
// more than the drains it prepares. SQLite: prepared inserts in one transaction per chunk;
// PostgreSQL: one `INSERT … SELECT FROM unnest(arrays)` per table per chunk, two chunks in flight. No NOTIFY: nothing
// listens before the run starts (a gateway's tailer starts from the newest event id).
import { createHash } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { formatJobId } from '@sluice/contracts';
import { isoNow, isPostgresUrl, transitionEvent, type SluiceDatabase } from '@sluice/storage';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION, benchJob } from './bench-job.js';

const CHUNK = 2_000;

export interface FillOptions {
  /** First payload index (default 0). */
  from?: number;
  /** The jobs' tenant (default BENCH_TENANT). */
  tenant?: string;
  /** Their accept time (`created_at`, the events' time; default now): pointers may carry it. */
  at?: string;
}

interface JobRowValues {
  id: string;
  input: string;
  hash: string;
  /** Both accept events, one row (seq 1..2). */
  events: string;
}

function build(from: number, size: number, at: string): JobRowValues[] {
  return Array.from({ length: size }, (_, k) => {
    const id = formatJobId(BENCH_VERSION);
    const input = JSON.stringify({ i: from + k, t: 0 });
    return {
      id,
      input,
      hash: createHash('sha256').update(input).digest('hex'),
      events: JSON.stringify([
        transitionEvent(id, 1, at, null, 'accepted', 0, {}),
        transitionEvent(id, 2, at, 'accepted', 'queued', 0, {}),
      ]),
    };
  });
}

const JOB_COLUMNS =
  'id, tenant_id, kind, version, state, input, output, error, reason, idempotency_key, ' +
  'input_hash, file_ids, attempts, max_attempts, epoch, attempt_id, last_seq, run_after, ' +
  'lease_until, created_at, updated_at, finished_at';
const EVENT_COLUMNS = 'job_id, tenant_id, kind, seq, seq_end, type, payload, created_at';

function fillSqlite(
  file: string,
  tenant: string,
  chunks: (at: string) => Iterable<JobRowValues[]>,
  fillAt: string,
) {
  const db = new SQLite(file);
  try {
    db.pragma('busy_timeout = 5000');
    const job = db.prepare(
      `insert into jobs (${JOB_COLUMNS}) values (?, ?, '${BENCH_KIND}', ` +
        `'${BENCH_VERSION}', 'queued', ?, null, null, null, null, ?, '[]', 0, ` +
        `${benchJob.maxAttempts}, 0, null, 2, null, null, ?, ?, null)`,
    );
    const event = db.prepare(
      `insert into job_events (${EVENT_COLUMNS}) values (?, ?, '${BENCH_KIND}', 1, 2, 'state', ?, ?)`,
    );
    const at = fillAt;
    const write = db.transaction((jobs: JobRowValues[]) => {
      for (const j of jobs) {
        job.run(j.id, tenant, j.input, j.hash, at, at);
        event.run(j.id, tenant, j.events, at);
      }
    });
    const ids: string[] = [];
    for (const jobs of chunks(at)) {
      write(jobs);
      for (const j of jobs) ids.push(j.id);
    }
    return ids;
  } finally {
    db.close();
  }
}

/** Chunks in flight on PostgreSQL: two backends insert while the parent builds the next chunk. */
const PG_CONNECTIONS = 2;

async function insertChunkPg(
  client: pg.Client,
  tenant: string,
  jobs: JobRowValues[],
  at: string,
): Promise<void> {
  const jobIds = jobs.map((j) => j.id);
  await client.query('begin');
  await client.query(
    `insert into jobs (${JOB_COLUMNS})
     select id, $4, $5, $6, 'queued', input::jsonb, null, null, null, null, hash, '[]'::jsonb,
            0, $7::int, 0, null, 2, null, null, $8, $8, null
     from unnest($1::text[], $2::text[], $3::text[]) as t(id, input, hash)`,
    [
      jobIds,
      jobs.map((j) => j.input),
      jobs.map((j) => j.hash),
      tenant,
      BENCH_KIND,
      BENCH_VERSION,
      benchJob.maxAttempts,
      at,
    ],
  );
  await client.query(
    `insert into job_events (${EVENT_COLUMNS})
     select job_id, $3, $4, 1, 2, 'state', payload::jsonb, $5
     from unnest($1::text[], $2::text[]) as t(job_id, payload)`,
    [jobIds, jobs.map((j) => j.events), tenant, BENCH_KIND, at],
  );
  await client.query('commit');
}

/**
 * Chunks go out on PG_CONNECTIONS connections, one transaction each (the rows are independent:
 * ids are unique and nothing reads them until the run starts).
 */
async function fillPostgres(
  url: string,
  tenant: string,
  chunks: (at: string) => Iterable<JobRowValues[]>,
  fillAt: string,
): Promise<string[]> {
  const clients = Array.from({ length: PG_CONNECTIONS }, () => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    return client;
  });
  try {
    await Promise.all(clients.map((c) => c.connect()));
    const at = fillAt;
    const ids: string[] = [];
    const busy: (Promise<void> | undefined)[] = clients.map(() => undefined);
    let turn = 0;
    for (const jobs of chunks(at)) {
      const slot = turn++ % clients.length;
      await busy[slot];
      const insert = insertChunkPg(clients[slot] as pg.Client, tenant, jobs, at);
      insert.catch(() => undefined); // observed by the await above or Promise.all below
      busy[slot] = insert;
      for (const j of jobs) ids.push(j.id);
    }
    await Promise.all(busy);
    return ids;
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}

/** Inserts `count` queued jobs into the run's database; returns their ids in payload order. */
export async function fillQueued(
  run: { url: string; database: SluiceDatabase },
  count: number,
  opts: FillOptions = {},
): Promise<string[]> {
  const from = opts.from ?? 0;
  const tenant = opts.tenant ?? BENCH_TENANT;
  function* chunks(at: string): Iterable<JobRowValues[]> {
    for (let start = 0; start < count; start += CHUNK)
      yield build(from + start, Math.min(CHUNK, count - start), at);
  }
  // Each database's own bulk path, on its own driver: chosen by the URL it is opened from.
  return isPostgresUrl(run.url)
    ? fillPostgres(run.url, tenant, chunks, opts.at ?? isoNow())
    : fillSqlite(run.url, tenant, chunks, opts.at ?? isoNow());
}
