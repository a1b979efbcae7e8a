// Dev tool: what the Streams drain's terminal write costs PostgreSQL per job, variant against
// variant, on a private cluster (its WAL and pg_stat_statements are this run's alone). Each
// variant gets its own database with <jobs> queued bench jobs (the prefill's rows) and its own
// backend; the drain finishes them 64 at a time — queued → succeeded, a `running` and a
// `succeeded` event in one row, output `{ i }`: what a Streams worker sends for a no-op — one
// round per variant in turn, so a change in the machine's load falls on every variant alike.
// Backend CPU is read from /proc/<pid>/schedstat (nanoseconds) around each statement; planning,
// execution, WAL and buffers from pg_stat_statements; updates and HOT updates of `jobs` from
// pg_stat_user_tables.
//
//   npx tsx --conditions=@sluice/source src/tools/terminal-cost.ts [jobs] [variants]
//
// Variants (comma-separated): `full` (the statement with the outbox and units inserts), `slim`
// (without them: what the product sends for a round that has neither), and the slim statement on
// a changed schema: `ff70` (`jobs` at fillfactor 70), `no-finished` (without `jobs_finished`),
// `no-event-tenant` (without `job_events_tenant`), `no-event-trigger` (without the events NOTIFY
// trigger); and `accept`: the accept group commit's statement instead (`acceptJobs`, 64 new
// queued jobs a transaction, through the product's pool of one connection). PERF=1 prints each backend's pid and waits 2 s before the drain (for `perf record -p`).
// Not a test; the numbers go into docs/performance.md.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { formatJobId } from '@sluice/contracts';
import {
  acceptJobs,
  migrate,
  openDatabase,
  isoNow,
  transitionEvent,
  type AttemptWrite,
} from '@sluice/storage';
import {
  rowOf,
  WRITE_ATTEMPTS_SQL,
  writeAttemptsSql,
} from '../../../packages/storage/src/dialect/postgres/attempt-write.js';
import { fillQueued } from '../sluice/bulk-fill.js';
import { startPrivatePostgres } from './private-postgres.js';

const [jobsArg = '30000', variantsArg = 'full,slim'] = process.argv.slice(2);
const JOBS = Number(jobsArg);
const BATCH = 64;
const SLIM = writeAttemptsSql({ outbox: false, units: false });

const VARIANTS: Record<string, { sql: string; before?: string; after?: string }> = {
  accept: { sql: '' },
  full: { sql: WRITE_ATTEMPTS_SQL },
  slim: { sql: SLIM },
  ff70: { sql: SLIM, before: 'alter table jobs set (fillfactor = 70)' },
  'no-finished': { sql: SLIM, after: 'drop index jobs_finished' },
  'no-event-tenant': { sql: SLIM, after: 'drop index job_events_tenant' },
  'no-event-trigger': { sql: SLIM, after: 'drop trigger job_events_notify on job_events' },
};

function terminal(row: { id: string; tenant_id: string; kind: string }, i: number, at: string) {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    kind: row.kind,
    fence: { epoch: 0, lastSeq: 2, state: 'queued' },
    state: 'succeeded',
    epoch: 1,
    attempts: 1,
    attemptId: `a${i.toString(16).padStart(31, '0')}`,
    leaseUntil: null,
    leaseOwner: null,
    output: { i },
    events: [
      transitionEvent(row.id, 3, at, 'queued', 'running', 1, {}),
      transitionEvent(row.id, 4, at, 'running', 'succeeded', 1, {}),
    ],
  } satisfies AttemptWrite;
}

const cpuNs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

const server = await startPrivatePostgres({
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track_planning': 'on',
});
try {
  const runs = [];
  for (const name of variantsArg.split(',')) {
    const v = VARIANTS[name];
    if (!v) throw new Error(`unknown variant ${name}`);
    const database = `tc_${name.replace(/-/g, '_')}`;
    const url = await server.createDatabase(database);
    const handle = openDatabase({ url, poolSize: 1, notifyEvents: false });
    await migrate(handle);
    await handle.close();
    // The product's session settings (open-postgres.ts), on one connection per variant.
    const c = new pg.Client({
      connectionString: url,
      options: '-c jit=off -c plan_cache_mode=force_custom_plan -c sluice.notify=off',
    });
    c.on('error', () => undefined); // the server stops under it at the end
    await c.connect();
    await c.query('create extension if not exists pg_stat_statements');
    if (v.before) await c.query(v.before);
    const fill = openDatabase({ url, poolSize: 2 });
    await fillQueued({ url, database: fill }, JOBS, { tenant: 'bench' });
    await fill.close();
    if (v.after) await c.query(v.after);
    await c.query('vacuum analyze');
    const rows = (
      await c.query<{ id: string; tenant_id: string; kind: string }>(
        'select id, tenant_id, kind from jobs order by created_at, id',
      )
    ).rows;
    const pid = (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    let round = async (s: number): Promise<number> => {
      const at = isoNow();
      const batch = rows.slice(s, s + BATCH).map((r, i) => rowOf(terminal(r, s + i, at)));
      batch.sort((a, b) => (a.id < b.id ? -1 : 1));
      const r = await c.query({ name: 'w', text: v.sql, values: [JSON.stringify(batch), at] });
      if (r.rowCount !== batch.length) throw new Error(`${name}: a write did not apply`);
      return batch.length;
    };
    let backend = pid;
    let close: () => Promise<void> = async () => {};
    if (name === 'accept') {
      await c.query('truncate jobs, job_events');
      const accept = openDatabase({ url, poolSize: 1, notifyEvents: false });
      const q = await accept.pgPool!.query<{ pid: number }>('select pg_backend_pid() as pid');
      backend = q.rows[0]!.pid;
      close = () => accept.close();
      round = async (s) => {
        const n = Math.min(BATCH, JOBS - s);
        const jobs = Array.from({ length: n }, (_, i) => ({
          id: formatJobId('v1'),
          tenantId: 'bench',
          kind: 'bench.noop',
          version: 'v1',
          input: { i: s + i, t: 0 },
          inputHash: 'h',
          maxAttempts: 3,
          outcome: { to: 'queued' as const },
        }));
        const r = await acceptJobs(accept, jobs);
        if (r.inserted.size !== n) throw new Error('accept: a job was not inserted');
        return n;
      };
    }
    runs.push({ name, database, c, round, close, pid: backend, cpu: 0, jobs: 0 });
  }
  const first = runs[0]!.c;
  await first.query('checkpoint');
  await first.query('select pg_stat_statements_reset()');
  if (process.env.PERF) {
    console.log(JSON.stringify(Object.fromEntries(runs.map((r) => [r.name, r.pid]))));
    await new Promise((r) => setTimeout(r, 2000));
  }
  for (let s = 0; s < JOBS; s += BATCH) {
    for (const run of runs) {
      const t0 = cpuNs(run.pid);
      run.jobs += await run.round(s);
      run.cpu += cpuNs(run.pid) - t0;
    }
  }
  const stats = await first.query<Record<string, string>>(
    `select d.datname, sum(total_plan_time) as plan, sum(total_exec_time) as exec,
       sum(wal_bytes)::bigint as wal_bytes, sum(wal_records) as wal_records,
       sum(shared_blks_hit + shared_blks_read) as blocks
     from pg_stat_statements s join pg_database d on d.oid = s.dbid
     where s.query not like '%pg_stat%' group by d.datname`,
  );
  for (const run of runs) {
    await run.c.query('select pg_stat_force_next_flush()');
    const st = stats.rows.find((r) => r.datname === run.database) ?? {};
    const t = (
      await run.c.query<Record<string, string>>(
        `select n_tup_upd as upd, n_tup_hot_upd as hot, pg_relation_size('jobs') as heap
         from pg_stat_user_tables where relname = 'jobs'`,
      )
    ).rows[0]!;
    const per1k = (x: number) => Math.round((x * 10_000) / run.jobs) / 10;
    const perJob = (x: string | undefined) => Math.round((Number(x) * 100) / run.jobs) / 100;
    console.log(
      JSON.stringify({
        variant: run.name,
        jobs: run.jobs,
        backendCpuMsPer1k: per1k(run.cpu / 1e6),
        planMsPer1k: per1k(Number(st.plan)),
        execMsPer1k: per1k(Number(st.exec)),
        walBytesPerJob: Math.round(Number(st.wal_bytes) / run.jobs),
        walRecordsPerJob: perJob(st.wal_records),
        buffersPerJob: perJob(st.blocks),
        hotOfUpdates: `${t.hot}/${t.upd}`,
        jobsHeapMiB: Math.round(Number(t.heap) / 104857.6) / 10,
      }),
    );
    await run.close();
    await run.c.end();
  }
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await server.stop();
}
