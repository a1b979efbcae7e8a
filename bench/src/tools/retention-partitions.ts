// Dev tool: on PostgreSQL, does a time-partitioned `job_events` beat the retention sweep's batched
// deletes? Two databases on a private cluster (private-postgres.ts: its WAL is this run's alone),
// each filled with the same <jobs> succeeded jobs spread evenly over <days> days, two event rows
// each (the accept row and the attempt's row, as the write model stores them):
//
//   batched      the real sweep (storage sweepRetention): jobs, events and everything else of
//                the expired jobs, 500 a transaction, no pause
//   partitioned  job_events partitioned by day on created_at: the expired days' partitions are
//                dropped, then the same sweep removes the jobs rows (finding no events left)
//
// <expireDays> of the <days> are expired. For each: wall time, rows per second, WAL bytes, and
// the latency of the two reads a gateway makes of job_events while it runs — the tail of the
// newest rows (`id > $1 order by id limit 100`) and one job's events (`job_id = $1 order by
// seq`, a kept job) — before (idle) and during the removal.
//
//   npx tsx --conditions=@sluice/source src/tools/retention-partitions.ts [jobs] [days] [expireDays]
//
// Not a test: the figures go to bench/results/<date>-retention-partitions.json and the commit.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createRetentionPolicy, parseRetentionSettings } from '@sluice/contracts';
import { migrate, openDatabase, sweepRetention } from '@sluice/storage';
import { startPrivatePostgres } from './private-postgres.js';

const [jobsArg = '1000000', daysArg = '10', expireArg = '3'] = process.argv.slice(2);
const JOBS = Number(jobsArg);
const DAYS = Number(daysArg);
const EXPIRE = Number(expireArg);
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 11, 1); // a fixed "now": partitions and cutoffs line up exactly
const iso = (ms: number) => new Date(ms).toISOString();

async function fill(c: pg.Client): Promise<void> {
  await c.query(`set sluice.notify = 'off'`);
  const at = `to_char((timestamptz '${iso(T0)}' - ((g - 0.5) / ${JOBS}::float8) * interval '${DAYS} days')
    at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  await c.query(`insert into jobs (id, tenant_id, kind, version, state, input, output, input_hash,
      file_ids, attempts, max_attempts, epoch, attempt_id, last_seq, created_at, updated_at, finished_at)
    select 'v1-' || lpad(g::text, 26, '0'), 't' || (g % 20), 'bench.job', 'v1', 'succeeded',
      '{"i": 1, "t": 0}', '{"ok": true}', md5(g::text), '[]', 1, 3, 1, 'a' || g, 3, ${at}, ${at}, ${at}
    from generate_series(1, ${JOBS}) g`);
  await c.query(`insert into job_events (job_id, tenant_id, kind, seq, seq_end, type, payload, created_at)
    select j.id, j.tenant_id, j.kind, s.seq, s.seq_end, 'state',
      jsonb_build_array(jsonb_build_object('jobId', j.id, 'seq', s.seq, 'type', 'state',
        'at', j.updated_at, 'from', 'queued', 'to', 'running', 'attempt', 1),
        jsonb_build_object('jobId', j.id, 'seq', s.seq + 1, 'type', 'progress', 'at', j.updated_at,
        'progress', jsonb_build_object('done', 1, 'total', 1))), j.updated_at
    from jobs j cross join (values (1, 2), (3, null::int)) as s(seq, seq_end)
    order by j.updated_at`);
  await c.query('checkpoint');
  await c.query('vacuum analyze');
}

/** job_events as a table partitioned by day on created_at (the alternative measured here). */
async function partitionEvents(c: pg.Client): Promise<string[]> {
  await c.query('drop table job_events');
  await c.query(`create table job_events (id bigserial, job_id text not null, tenant_id text not null,
    kind text not null, seq integer not null, seq_end integer, type text not null,
    payload jsonb not null, created_at text not null) partition by range (created_at)`);
  await c.query('create unique index job_events_job_seq on job_events (job_id, seq, created_at)');
  await c.query('create index job_events_id on job_events (id)');
  await c.query('create index job_events_tenant on job_events (tenant_id, id)');
  const names: string[] = [];
  for (let d = 0; d <= DAYS; d++) {
    const name = `job_events_d${d}`;
    names.push(name);
    await c.query(`create table ${name} partition of job_events
      for values from ('${iso(T0 - (d + 1) * DAY)}') to ('${iso(T0 - d * DAY)}')`);
  }
  return names;
}

interface Latencies {
  tail: number[];
  byJob: number[];
}

/** Runs the gateway's two reads of job_events back to back until stopped. */
function readLoop(url: string, maxId: number, keptJobs: number) {
  const lat: Latencies = { tail: [], byJob: [] };
  let stop = false;
  const c = new pg.Client({ connectionString: url });
  const done = (async () => {
    await c.connect();
    while (!stop) {
      let t = performance.now();
      await c.query({
        name: 'tail',
        text: 'select id, job_id, seq, payload from job_events where id > $1 order by id limit 100',
        values: [maxId - 1000],
      });
      lat.tail.push(performance.now() - t);
      const g = 1 + Math.floor(Math.random() * (keptJobs - 1));
      t = performance.now();
      await c.query({
        name: 'byjob',
        text: 'select seq, payload from job_events where job_id = $1 order by seq',
        values: [`v1-${String(g).padStart(26, '0')}`],
      });
      lat.byJob.push(performance.now() - t);
    }
    await c.end();
  })();
  return { lat, stop: async () => ((stop = true), await done) };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length
    ? Number(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(2))
    : 0;
};
const summary = (l: Latencies) => ({
  tailP50: pct(l.tail, 50),
  tailP99: pct(l.tail, 99),
  tailMax: pct(l.tail, 100),
  byJobP50: pct(l.byJob, 50),
  byJobP99: pct(l.byJob, 99),
  byJobMax: pct(l.byJob, 100),
  reads: l.tail.length + l.byJob.length,
});

async function scenario(
  cluster: Awaited<ReturnType<typeof startPrivatePostgres>>,
  name: 'batched' | 'partitioned',
) {
  const url = await cluster.createDatabase(`bench_${name}`);
  const database = openDatabase({ url, poolSize: 4, notifyEvents: false });
  await migrate(database);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const partitions = name === 'partitioned' ? await partitionEvents(c) : [];
  let t = performance.now();
  await fill(c);
  const fillSeconds = (performance.now() - t) / 1000;
  const count = async (table: string) =>
    Number((await c.query(`select count(*) n from ${table}`)).rows[0].n);
  const size = async () =>
    Number((await c.query(`select pg_database_size(current_database()) b`)).rows[0].b);
  const lsn = async () => String((await c.query('select pg_current_wal_lsn() l')).rows[0].l);
  const wal = async (from: string) =>
    Number((await c.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) b', [from])).rows[0].b);
  const before = {
    jobs: await count('jobs'),
    events: await count('job_events'),
    bytes: await size(),
  };
  const maxId = Number((await c.query('select max(id) m from job_events')).rows[0].m);
  const kept = Math.floor((JOBS * (DAYS - EXPIRE)) / DAYS);

  const idle = readLoop(url, maxId, kept);
  await new Promise((r) => setTimeout(r, 5000));
  await idle.stop();

  const during = readLoop(url, maxId, kept);
  const from = await lsn();
  t = performance.now();
  let dropSeconds = 0;
  let dropWal = 0;
  if (name === 'partitioned') {
    const l = await lsn();
    for (const p of partitions.slice(DAYS - EXPIRE)) await c.query(`drop table ${p}`);
    dropSeconds = (performance.now() - t) / 1000;
    dropWal = await wal(l);
  }
  const policy = createRetentionPolicy(
    {},
    parseRetentionSettings({ default: { succeeded: (DAYS - EXPIRE) * DAY } }),
  );
  const pass = await sweepRetention({
    database,
    policy,
    now: T0,
    batchSize: 500,
    pauseMs: 0,
    maxBatches: 1_000_000,
  });
  const seconds = (performance.now() - t) / 1000;
  const walBytes = await wal(from);
  await during.stop();
  const after = {
    jobs: await count('jobs'),
    events: await count('job_events'),
    bytes: await size(),
  };
  await c.end();
  await database.close();
  const removedRows = before.jobs - after.jobs + (before.events - after.events);
  return {
    scenario: name,
    fillSeconds: Number(fillSeconds.toFixed(1)),
    before,
    after,
    removedJobs: before.jobs - after.jobs,
    removedEvents: before.events - after.events,
    batches: pass.batches,
    seconds: Number(seconds.toFixed(2)),
    rowsPerSecond: Math.round(removedRows / seconds),
    jobsPerSecond: Math.round((before.jobs - after.jobs) / seconds),
    walBytes,
    walBytesPerJob: Math.round(walBytes / (before.jobs - after.jobs)),
    partitionDrop:
      name === 'partitioned'
        ? { seconds: Number(dropSeconds.toFixed(3)), walBytes: dropWal }
        : undefined,
    readsIdle: summary(idle.lat),
    readsDuring: summary(during.lat),
  };
}

const cluster = await startPrivatePostgres({ max_wal_size: '4GB' });
try {
  const started = new Date();
  const results = [];
  for (const name of ['batched', 'partitioned'] as const) {
    console.error(`${name}: filling ${JOBS} jobs, ${2 * JOBS} event rows over ${DAYS} days…`);
    const r = await scenario(cluster, name);
    console.error(JSON.stringify(r));
    results.push(r);
  }
  const load = (await import('node:os')).loadavg().map((x) => Number(x.toFixed(1)));
  const out = {
    tool: 'retention-partitions',
    started: started.toISOString(),
    jobs: JOBS,
    days: DAYS,
    expireDays: EXPIRE,
    loadAverage: load,
    results,
  };
  const dir = join(dirname(fileURLToPath(import.meta.url)), '../../results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${started.toISOString().slice(0, 10)}-retention-partitions.json`);
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${file}`);
  for (const r of results)
    console.log(
      `${r.scenario.padEnd(12)} removed ${r.removedJobs} jobs + ${r.removedEvents} event rows in ${r.seconds} s ` +
        `(${r.rowsPerSecond} rows/s), WAL ${(r.walBytes / 1e6).toFixed(1)} MB (${r.walBytesPerJob} B/job); ` +
        `tail p99 ${r.readsIdle.tailP99} → ${r.readsDuring.tailP99} ms, by-job p99 ${r.readsIdle.byJobP99} → ${r.readsDuring.byJobP99} ms`,
    );
} finally {
  await cluster.stop();
}
