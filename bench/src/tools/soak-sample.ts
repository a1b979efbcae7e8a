// What the scale run (soak-scale.ts) reads at each row: PostgreSQL's tables, WAL and statements,
// Valkey's memory and streams, and the CPU and RSS of every process of the run. Read-only except
// `pg_stat_statements_reset()`, so each row's statement figures cover that row's window alone.
import { readdirSync, readFileSync } from 'node:fs';
import type { Redis } from 'iovalkey';
import type pg from 'pg';
import { CLK_TCK } from '../harness/cpu.js';

export interface TableSample {
  table: string;
  /** pg_total_relation_size: heap + indexes + TOAST. */
  totalBytes: number;
  /** pg_relation_size: the heap's main fork alone. */
  heapBytes: number;
  indexBytes: number;
  liveRows: number;
  deadRows: number;
}

export interface StatementSample {
  /** First 90 characters, whitespace collapsed. */
  shape: string;
  calls: number;
  meanMs: number;
  maxMs: number;
  totalMs: number;
}

export interface PgSample {
  tables: TableSample[];
  walLsn: string;
  /** Jobs by state (the retention sweep removes succeeded ones). */
  states: Record<string, number>;
  statements: StatementSample[];
  /** The statements of STATEMENT_GROUPS, summed over their texts. */
  groups: Record<string, StatementSample>;
}

/**
 * The hot statements of a Streams deployment, by how their text starts: the accept's insert (its
 * VALUES list grows with the batch), the worker's read of a delivered job's row (the Streams
 * "claim": XREADGROUP hands out the pointer, this read loads the job), the terminal write, the
 * retention sweep (every statement of it).
 */
export const STATEMENT_GROUPS: Record<string, (q: string) => boolean> = {
  accept: (q) => q.startsWith('with j as (insert into jobs'),
  claim: (q) => q.startsWith('select id, tenant_id, kind, version, state, input, file_ids'),
  write: (q) => q.startsWith('with v as (select * from json_to_recordset'),
  // The sweep's statements all go through its marks table.
  retention: (q) => q.includes('retention_marks'),
};

export async function samplePg(c: pg.Client, statementsOn: boolean): Promise<PgSample> {
  const tables = await c.query<{
    t: string;
    total: string;
    heap: string;
    idx: string;
    live: string;
    dead: string;
  }>(
    `select relname as t, pg_total_relation_size(relid) as total, pg_relation_size(relid) as heap,
       pg_indexes_size(relid) as idx, n_live_tup as live, n_dead_tup as dead
     from pg_stat_user_tables where schemaname = current_schema()
       and relname not like 'kysely_%' and relname <> 'pg_stat_statements'
     order by pg_total_relation_size(relid) desc`,
  );
  const wal = await c.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
  const states = await c.query<{ state: string; n: string }>(
    'select state, count(*) as n from jobs group by state',
  );
  let statements: StatementSample[] = [];
  const groups: Record<string, StatementSample> = {};
  if (statementsOn) {
    const s = await c.query<{ q: string; calls: string; mean: number; max: number; total: number }>(
      `select query as q, calls, mean_exec_time as mean, max_exec_time as max,
         total_exec_time as total
       from pg_stat_statements
       where dbid = (select oid from pg_database where datname = current_database())
       order by total_exec_time desc`,
    );
    statements = s.rows.map((r) => ({
      shape: r.q.replace(/\s+/g, ' ').trim().slice(0, 90),
      calls: Number(r.calls),
      meanMs: r.mean,
      maxMs: r.max,
      totalMs: r.total,
    }));
    // One statement can have several texts (a batch's row count changes its VALUES list).
    for (const [i, st] of statements.entries()) {
      const q = s.rows[i]!.q.replace(/\s+/g, ' ').trim();
      const name = Object.entries(STATEMENT_GROUPS).find(([, test]) => test(q))?.[0];
      if (!name) continue;
      const g = (groups[name] ??= { shape: name, calls: 0, meanMs: 0, maxMs: 0, totalMs: 0 });
      g.calls += st.calls;
      g.totalMs += st.totalMs;
      g.maxMs = Math.max(g.maxMs, st.maxMs);
      g.meanMs = g.totalMs / g.calls;
    }
    statements = statements.slice(0, 12);
    await c.query('select pg_stat_statements_reset()');
  }
  return {
    tables: tables.rows.map((r) => ({
      table: r.t,
      totalBytes: Number(r.total),
      heapBytes: Number(r.heap),
      indexBytes: Number(r.idx),
      liveRows: Number(r.live),
      deadRows: Number(r.dead),
    })),
    walLsn: wal.rows[0]!.lsn,
    states: Object.fromEntries(states.rows.map((r) => [r.state, Number(r.n)])),
    statements,
    groups,
  };
}

export async function walBytesBetween(c: pg.Client, from: string, to: string): Promise<number> {
  const r = await c.query<{ d: string }>('select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn) as d', [
    to,
    from,
  ]);
  return Number(r.rows[0]!.d);
}

export interface RedisSample {
  usedMemory: number;
  /** XLEN of each stream key. */
  streams: Record<string, number>;
}

export async function sampleRedis(redis: Redis): Promise<RedisSample> {
  const info = await redis.info('memory');
  const usedMemory = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? NaN);
  const streams: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000, 'TYPE', 'stream');
    cursor = next;
    for (const key of keys) streams[key] = await redis.xlen(key);
  } while (cursor !== '0');
  return { usedMemory, streams };
}

/** A process's own CPU, plus (`withChildren`) what its exited children used (cutime + cstime). */
function procCpuMs(pid: number, withChildren: boolean): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const own = Number(f[11]) + Number(f[12]);
    const reaped = withChildren ? Number(f[13]) + Number(f[14]) : 0;
    return ((own + reaped) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

function rssKiB(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(text)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

function childrenOf(parent: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) out.push(Number(name));
    } catch {
      // exited while listing
    }
  }
  return out;
}

export interface ProcSample {
  cpuMs: number;
  /** RSS in MiB (PostgreSQL: the postmaster and its live children summed, shared pages counted
   *  in each, so an upper bound). */
  rssMiB: number;
}

/**
 * One process, or with `cluster` a PostgreSQL postmaster and every live backend and helper: the
 * postmaster reaps its children, so its cutime + cstime hold every backend that already exited,
 * and the cluster's total CPU is exact across pool reconnects.
 */
export function sampleProc(pid: number, cluster = false): ProcSample {
  if (!cluster) return { cpuMs: procCpuMs(pid, false), rssMiB: rssKiB(pid) / 1024 };
  const kids = childrenOf(pid);
  const cpuMs = procCpuMs(pid, true) + kids.reduce((a, k) => a + (procCpuMs(k, false) || 0), 0);
  const rss = rssKiB(pid) + kids.reduce((a, k) => a + (rssKiB(k) || 0), 0);
  return { cpuMs, rssMiB: rss / 1024 };
}

/** The postmaster's pid, from the first line of `postmaster.pid` in the data directory. */
export function postmasterPid(dataDir: string): number {
  return Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
