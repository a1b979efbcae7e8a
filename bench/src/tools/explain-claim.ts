// Dev tool: EXPLAIN (ANALYZE, BUFFERS, WAL) of the embedded PostgreSQL claim and of the terminal
// attempt write that follows it, on a fresh database of queued bench jobs (split evenly over
// <tenants>), round after round on one connection, as a drain would.
//   npx tsx --conditions=@sluice/source src/tools/explain-claim.ts <jobs> <tenants> <fresh|analyzed|stale> [limit] [rounds]
// PREPARED=1 plans as named statements do (EXPLAIN EXECUTE), CPU=1 measures the backend's CPU
// instead of explaining, PLAIN=1 swaps in an unfair one-version claim (the floor), ALL=1 prints
// every round's plans, SCHEMA=1 the jobs indexes. Not a test; numbers go into commit messages.
import pg from 'pg';
import { createPgDatabase } from '@sluice/testkit';
import { migrate, openDatabase, isoNow, isoIn, transitionEvent } from '@sluice/storage';
import { PG_CLAIM_SQL } from '../../../packages/storage/src/dialect/postgres/claim-jobs.js';
import { WRITE_ATTEMPTS_SQL } from '../../../packages/storage/src/dialect/postgres/attempt-write.js';
import { fillQueued } from '../sluice/bulk-fill.js';

// PLAIN=1: the floor, an unfair one-version claim (an ordered range of the queued index).
const PLAIN_SQL = `with k as (select id, state from jobs where state = 'queued' and kind = ($1::text[])[1]
    and version = ($2::text[])[1] and (run_after is null or run_after <= $3)
    and attempts < max_attempts and ($4::text is null or true) and not (id = any($8::text[]))
  order by tenant_id, priority desc, created_at limit $5 for update skip locked)
update jobs j set state = 'running', epoch = j.epoch + 1, attempts = j.attempts + 1,
  attempt_id = replace(gen_random_uuid()::text, '-', ''), lease_until = $6, lease_owner = $7,
  updated_at = $3
where j.id = any(array(select id from k)) returning j.id, 'queued' as from_state`;
const CLAIM_SQL = process.env.PLAIN === '1' ? PLAIN_SQL : PG_CLAIM_SQL;

const [jobs = '20000', tenants = '1', mode = 'analyzed', limit = '64', rounds = '4'] =
  process.argv.slice(2);
// CPU=1: no EXPLAIN; the statements run as named statements and the backend's utime+stime is
// read from /proc around all rounds (the server runs on this machine).
const cpuMode = process.env.CPU === '1';
const explain = cpuMode ? '' : 'explain (analyze, buffers, wal)';
const show = (r: pg.QueryResult) => r.rows.map((x) => x['QUERY PLAN'] as string).join('\n');
const tail = (r: pg.QueryResult) =>
  r.rows
    .map((x) => x['QUERY PLAN'] as string)
    .filter((l) => /Execution Time|Planning Time|^\S.*WAL:|^ {2}WAL|^ {2}Buffers/.test(l))
    .join(' | ');
const db = await createPgDatabase({ prefix: 'explain' });
try {
  const database = openDatabase({ url: db.url, poolSize: 2 });
  await migrate(database);
  const n = Number(tenants);
  const c = new pg.Client({ connectionString: db.url });
  c.on('error', () => undefined);
  await c.connect();
  if (mode === 'stale') {
    // The fairness row's shape: statistics taken while only STALE_ROWS (default 50) jobs of the
    // last tenant were queued (the bench analyses before the run), then the backlog lands on the
    // first.
    const before = Number(process.env.STALE_ROWS ?? 50);
    if (before > 0)
      await fillQueued({ url: db.url, database }, before, { tenant: `t${n - 1}`, from: 9_000_000 });
    // STALE_DONE=1: those jobs have finished when the statistics are taken (none queued), as B's
    // idle jobs have in the fairness row when autovacuum analyses them.
    if (process.env.STALE_DONE === '1') await c.query(`update jobs set state = 'succeeded'`);
    await c.query('vacuum analyze');
    await fillQueued({ url: db.url, database }, Number(jobs), { tenant: 't0', from: 0 });
  } else {
    for (let t = 0; t < n; t++)
      await fillQueued({ url: db.url, database }, Math.floor(Number(jobs) / n), {
        tenant: `t${t}`,
        from: t * 1_000_000,
      });
  }
  await database.close();
  if (mode === 'analyzed') await c.query('analyze');
  // PREPARED=1: the statements run as the product sends them (named, so the plan cache may
  // switch to a generic plan after five executions); EXPLAIN EXECUTE shows the plan in use.
  const prepared = process.env.PREPARED === '1';
  if (prepared) {
    await c.query(`prepare claim as ${CLAIM_SQL}`);
    await c.query(`prepare write as ${WRITE_ATTEMPTS_SQL}`);
  }
  const lit = (v: unknown) =>
    v === null
      ? 'null'
      : Array.isArray(v)
        ? `array[${v.map((x) => `'${String(x)}'`).join(',')}]::text[]`
        : typeof v === 'number'
          ? String(v)
          : `'${String(v).replace(/'/g, "''")}'`;
  const run = (name: string, text: string, values: unknown[]) =>
    cpuMode
      ? c.query({ name, text, values })
      : prepared
        ? c.query(`${explain} execute ${name}(${values.map(lit).join(', ')})`)
        : c.query(`${explain} ${text}`, values);
  const pid = (await c.query('select pg_backend_pid() as pid')).rows[0].pid as number;
  const { readFileSync } = await import('node:fs');
  const ticks = () => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(f[11]) + Number(f[12]);
  };
  const t0 = ticks();
  const w0 = Date.now();
  let claimedTotal = 0;
  let claimTicks = 0;
  let writeTicks = 0;
  for (let i = 0; i < Number(rounds); i++) {
    const now = Date.now();
    const at = isoNow(now);
    const lease = isoIn(30000, now);
    const values = [['bench.noop'], ['v1'], at, null, Number(limit), lease, 'w1', []];
    const tc = ticks();
    const claim = await run('claim', CLAIM_SQL, values);
    claimTicks += ticks() - tc;
    // The explain ran the claim: read back what it started, then finish those jobs.
    const claimed = await c.query(
      `select id, tenant_id, kind, epoch, attempts, attempt_id, last_seq from jobs
       where state = 'running' and lease_until = $1`,
      [lease],
    );
    const rows = claimed.rows.map((j) => {
      const seq = Number(j.last_seq);
      return {
        id: j.id,
        ep: j.epoch,
        seq0: seq,
        from_state: 'running',
        lease_check: false,
        to_state: 'succeeded',
        new_ep: j.epoch,
        new_att: j.attempts,
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
          transitionEvent(j.id, seq + 1, at, 'queued', 'running', j.attempts, {}),
          transitionEvent(j.id, seq + 2, at, 'running', 'succeeded', j.attempts, {}),
        ],
        seq_end: seq + 2,
        outbox_due: null,
        wait: null,
        units: [{ unit_key: 'only', result: 1, asset_key: null }],
      };
    });
    rows.sort((a, b) => (a.id < b.id ? -1 : 1));
    const tw = ticks();
    const write = await run('write', WRITE_ATTEMPTS_SQL, [JSON.stringify(rows), at]);
    writeTicks += ticks() - tw;
    claimedTotal += claimed.rowCount ?? 0;
    if (cpuMode) continue;
    if (i === Number(rounds) - 1 || process.env.ALL) {
      console.log(show(claim));
      console.log(show(write));
    }
    if (i % 10 === 0 || i === Number(rounds) - 1)
      console.log(`round ${i}: claim ${claimed.rowCount} | ${tail(claim)}`);
    if (i % 10 === 0 || i === Number(rounds) - 1) console.log(`round ${i}: write | ${tail(write)}`);
  }
  if (cpuMode) {
    const ms = (ticks() - t0) * 10;
    console.log(
      `backend CPU ${ms} ms for ${claimedTotal} jobs (${rounds} rounds): ${((ms * 1000) / claimedTotal).toFixed(1)} ms per 1k jobs (claim ${((claimTicks * 10000) / claimedTotal).toFixed(1)}, write ${((writeTicks * 10000) / claimedTotal).toFixed(1)}); wall ${Date.now() - w0} ms`,
    );
  }
  if (process.env.SCHEMA)
    console.log(
      (await c.query(`select indexdef from pg_indexes where tablename = 'jobs'`)).rows
        .map((x) => x.indexdef)
        .join('\n'),
    );
  await c.end();
} finally {
  await db.drop();
}
