// Dev tool: what a job's two row writes cost PostgreSQL under three index layouts of `jobs`, in
// load-independent counters (WAL records and bytes, buffers, and pg_stat_user_tables' updates and
// HOT updates), claiming and finishing <jobs> queued bench jobs of one tenant 64 at a time:
//
//   current  the migrated schema: the claim (PG_CLAIM_SQL) and the terminal write
//            (WRITE_ATTEMPTS_SQL) as the product sends them.
//   trimmed  the same statements; `jobs_lease_owner` dropped (the reap reads the running rows'
//            lease index instead) and `running` left out of `jobs_tenant_open`.
//   side     every index that mentions a column the two writes change leaves `jobs` (so both
//            UPDATEs can be HOT): queued rows in a slim `job_queue` (deleted by the claim), leases
//            in `job_lease` (inserted by the claim, deleted by the terminal write), ended jobs in
//            `job_ended` for retention (inserted by the terminal write). The most favourable form
//            of that layout: no listing index, one index per side table.
//
//   npx tsx --conditions=@sluice/source src/tools/hot-model.ts [jobs] [variants] [repeats]
// A variant is a layout, or a layout with `+ff`: `jobs` at fillfactor 70 (HOT needs room on the
// row's own page; a table filled at the default 100 has none).
// Not a test; the numbers go into docs/performance.md. Backend CPU is printed too, flagged: the
// machine it ran on was shared.
import pg from 'pg';
import { createPgDatabase } from '@sluice/testkit';
import { migrate, openDatabase, isoNow, isoIn, transitionEvent } from '@sluice/storage';
import { PG_CLAIM_SQL } from '../../../packages/storage/src/dialect/postgres/claim-jobs.js';
import { WRITE_ATTEMPTS_SQL } from '../../../packages/storage/src/dialect/postgres/attempt-write.js';
import { fillQueued } from '../sluice/bulk-fill.js';

type Layout = 'current' | 'trimmed' | 'side';
/** A layout, optionally `+ff` (jobs at fillfactor 70, so an update's new version fits its page). */
type Variant = Layout | `${Layout}+ff`;
const [jobsArg = '2000', variantsArg = 'current,trimmed,side', repeatsArg = '1'] =
  process.argv.slice(2);
const LIMIT = 64;

const SIDE_SCHEMA = [
  'drop index jobs_queued',
  'drop index jobs_running',
  'drop index jobs_tenant_open',
  'drop index jobs_retention',
  'drop index jobs_lease_owner',
  `create table job_queue (job_id text primary key, tenant_id text not null, kind text not null,
     version text not null, priority integer not null, created_at text not null, run_after text)`,
  `create index job_queue_claim on job_queue (kind, version, tenant_id, priority desc, created_at)`,
  `create table job_lease (job_id text primary key, lease_until text not null, lease_owner text)`,
  `create table job_ended (job_id text not null, state text not null, kind text not null,
     tenant_id text not null, updated_at text not null)`,
  'create index job_ended_retention on job_ended (state, kind, tenant_id, updated_at)',
  `insert into job_queue select id, tenant_id, kind, version, priority, created_at, run_after
     from jobs where state = 'queued'`,
];

const TRIMMED_SCHEMA = [
  'drop index jobs_lease_owner',
  'drop index jobs_tenant_open',
  `create index jobs_tenant_open on jobs (tenant_id, state, created_at)
     where state in ('accepted', 'queued', 'needs_review', 'dead_lettered')`,
];

// The side layout's claim: the queue rows are deleted (no index entry), the lease inserted, the
// job row moved (HOT: nothing it changes is indexed).
const SIDE_CLAIM = `
with k as (delete from job_queue where job_id in (select job_id from job_queue
    where kind = ($1::text[])[1] and version = ($2::text[])[1] and (run_after is null or run_after <= $3)
      and ($4::text is null or true) and not (job_id = any($8::text[]))
    order by kind, version, tenant_id, priority desc, created_at limit $5 for update skip locked)
  returning job_id),
l as (insert into job_lease select job_id, $6, $7 from k)
update jobs j set state = 'running', epoch = j.epoch + 1, attempts = j.attempts + 1,
  attempt_id = replace(gen_random_uuid()::text, '-', ''), lease_until = $6, lease_owner = $7,
  updated_at = $3
where j.id = any(array(select job_id from k)) returning j.id`;

const SIDE_END = `
with d as (delete from job_lease where job_id = any($1::text[]) returning job_id)
insert into job_ended select j.id, j.state, j.kind, j.tenant_id, j.updated_at
from jobs j where j.id = any(array(select job_id from d))`;

interface Tally {
  walRecords: number;
  walBytes: number;
  walFpi: number;
  buffers: number;
  statements: number;
}

type Plan = {
  'WAL Records'?: number;
  'WAL Bytes'?: number;
  'WAL FPI'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
};

async function run(variant: Variant, jobs: number) {
  const db = await createPgDatabase({ prefix: 'hotmodel' });
  const c = new pg.Client({ connectionString: db.url });
  c.on('error', () => undefined);
  try {
    const database = openDatabase({ url: db.url, poolSize: 2 });
    await migrate(database);
    const layout = variant.replace('+ff', '') as Layout;
    if (variant.endsWith('+ff')) await sql(db.url, 'alter table jobs set (fillfactor = 70)');
    await fillQueued({ url: db.url, database }, jobs, { tenant: 't0', from: 0 });
    await database.close();
    await c.connect();
    for (const s of layout === 'side' ? SIDE_SCHEMA : layout === 'trimmed' ? TRIMMED_SCHEMA : [])
      await c.query(s);
    await c.query('vacuum analyze');
    const tally: Tally = { walRecords: 0, walBytes: 0, walFpi: 0, buffers: 0, statements: 0 };
    const measured = async (text: string, values: unknown[]) => {
      const r = await c.query(`explain (analyze, buffers, wal, format json) ${text}`, values);
      const raw = (r.rows[0] as { 'QUERY PLAN': unknown })['QUERY PLAN'];
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: Plan }];
      const p = plan[0].Plan;
      tally.walRecords += p['WAL Records'] ?? 0;
      tally.walBytes += p['WAL Bytes'] ?? 0;
      tally.walFpi += p['WAL FPI'] ?? 0;
      tally.buffers += (p['Shared Hit Blocks'] ?? 0) + (p['Shared Read Blocks'] ?? 0);
      tally.statements++;
    };
    const pid = (await c.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const { readFileSync } = await import('node:fs');
    const ticks = () => {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(f[11]) + Number(f[12]);
    };
    const t0 = ticks();
    let done = 0;
    while (done < jobs) {
      const now = Date.now();
      const at = isoNow(now);
      const lease = isoIn(30000, now);
      const values = [['bench.noop'], ['v1'], at, null, LIMIT, lease, 'w1', []];
      await measured(layout === 'side' ? SIDE_CLAIM : PG_CLAIM_SQL, values);
      const claimed = await c.query(
        `select id, tenant_id, kind, epoch, attempts, attempt_id, last_seq from jobs
         where id in (select id from jobs where lease_until = $1) and state = 'running'`,
        [lease],
      );
      if (claimed.rowCount === 0) break;
      const rows = claimed.rows.map((j) => terminalRow(j, at));
      rows.sort((a, b) => (a.id < b.id ? -1 : 1));
      await measured(WRITE_ATTEMPTS_SQL, [JSON.stringify(rows), at]);
      if (layout === 'side') await measured(SIDE_END, [rows.map((r) => r.id)]);
      done += claimed.rowCount ?? 0;
    }
    const cpuMs = (ticks() - t0) * 10;
    await c.query('select pg_stat_force_next_flush()');
    await new Promise((r) => setTimeout(r, 1200));
    const stats = await c.query<{
      relname: string;
      ins: string;
      upd: string;
      hot: string;
      del: string;
    }>(
      `select relname, n_tup_ins as ins, n_tup_upd as upd, n_tup_hot_upd as hot, n_tup_del as del
       from pg_stat_user_tables where relname in ('jobs', 'job_events', 'job_queue', 'job_lease',
         'job_ended', 'units')`,
    );
    const per = (n: number) => Math.round((n / done) * 100) / 100;
    console.log(
      JSON.stringify({
        variant,
        jobs: done,
        walRecordsPerJob: per(tally.walRecords),
        walBytesPerJob: Math.round(tally.walBytes / done),
        walFpiPerJob: per(tally.walFpi),
        buffersPerJob: per(tally.buffers),
        statementsPerJob: per(tally.statements),
        backendCpuMsPer1k_loaded: Math.round((cpuMs * 1000) / done),
        tables: Object.fromEntries(
          stats.rows.map((r) => [
            r.relname,
            // The fill's inserts are in these counters too (they ran before the window).
            {
              ins: per(Number(r.ins)),
              upd: per(Number(r.upd)),
              hot: per(Number(r.hot)),
              del: per(Number(r.del)),
            },
          ]),
        ),
      }),
    );
  } finally {
    await c.end().catch(() => undefined);
    await db.drop();
  }
}

async function sql(url: string, text: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

function terminalRow(j: Record<string, unknown>, at: string) {
  const seq = Number(j.last_seq);
  const id = String(j.id);
  const attempts = Number(j.attempts);
  return {
    id,
    ep: j.epoch,
    seq0: seq,
    from_state: 'running',
    lease_check: false,
    to_state: 'succeeded',
    new_ep: j.epoch,
    new_att: attempts,
    aid: j.attempt_id,
    lease: null,
    owner: null,
    has_out: true,
    out: { i: 1 },
    has_err: false,
    err: null,
    has_rsn: false,
    rsn: null,
    has_ra: false,
    ra: null,
    fin: true,
    n: 2,
    tenant: j.tenant_id,
    kind: j.kind,
    etype: 'state',
    payload: [
      transitionEvent(id, seq + 1, at, 'queued', 'running', attempts, {}),
      transitionEvent(id, seq + 2, at, 'running', 'succeeded', attempts, {}),
    ],
    seq_end: seq + 2,
    outbox_due: null,
    wait: null,
    units: null,
  };
}

const variants = variantsArg.split(',') as Variant[];
for (let i = 0; i < Number(repeatsArg); i++)
  for (const v of variants) await run(v, Number(jobsArg));
