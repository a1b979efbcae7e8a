// The scale run's rows, its flatness check and its markdown (soak-scale.ts writes them).
import type { RedisSample, StatementSample, TableSample } from './soak-sample.js';

export interface ProcRow {
  /** Share of one core over the window, %. */
  cpuPct: number;
  /** CPU ms per 1,000 jobs settled in the window. */
  cpuMsPer1k: number;
  rssMiB: number;
}

type StatementFigures = Pick<StatementSample, 'calls' | 'meanMs' | 'maxMs'>;

export interface SoakRow {
  n: number;
  at: string;
  elapsedS: number;
  load1: number;
  accepted: number;
  settled: number;
  backlog: number;
  producerLag: number;
  refused: number;
  /** Jobs settled per second over the window. */
  settledPerSec: number;
  walBytesSinceStart: number;
  walBytesPerJob: number;
  tables: TableSample[];
  states: Record<string, number>;
  /** STATEMENT_GROUPS over the window (pg_stat_statements): calls, mean and max ms. */
  accept: StatementFigures | undefined;
  claim: StatementFigures | undefined;
  write: StatementFigures | undefined;
  retention: StatementFigures | undefined;
  statements: StatementSample[];
  dispatchToStart: { p50: number; p99: number; n: number };
  submitToStart: { p50: number; p99: number; n: number };
  redis: RedisSample;
  /** sluice_retention_* from the gateways' /metrics (totals summed, gauges at their max). */
  gatewayRetention: Record<string, number>;
  procs: Record<string, ProcRow>;
}

const mib = (b: number) => (b / 1048576).toFixed(1);
const f1 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(1));
const table = (row: SoakRow, name: string) => row.tables.find((t) => t.table === name);

export function rowLine(r: SoakRow): string {
  const jobs = table(r, 'jobs');
  const events = table(r, 'job_events');
  const streamLen = Object.entries(r.redis.streams)
    .map(([k, v]) => `${k.split(':').slice(-2).join(':')}=${v}`)
    .join(' ');
  const cpu = Object.entries(r.procs)
    .map(([k, p]) => `${k} ${p.cpuPct.toFixed(0)}%/${p.rssMiB.toFixed(0)}M`)
    .join(' ');
  return (
    `#${r.n} t=${r.elapsedS.toFixed(0)}s load1=${r.load1.toFixed(1)} acc=${r.accepted} ` +
    `set=${r.settled} backlog=${r.backlog} lag=${r.producerLag} ${r.settledPerSec.toFixed(0)}/s | ` +
    `jobs ${jobs?.liveRows ?? 0} rows ${mib(jobs?.totalBytes ?? 0)} MiB dead ${jobs?.deadRows ?? 0}, ` +
    `events ${mib(events?.totalBytes ?? 0)} MiB | WAL ${mib(r.walBytesSinceStart)} MiB ` +
    `(${r.walBytesPerJob.toFixed(0)} B/job) | accept ${f1(r.accept?.meanMs)}/${f1(r.accept?.maxMs)} ms claim ${f1(r.claim?.meanMs)}/${f1(r.claim?.maxMs)} ms ` +
    `write ${f1(r.write?.meanMs)}/${f1(r.write?.maxMs)} ms | d→s p50 ${r.dispatchToStart.p50} ` +
    `p99 ${r.dispatchToStart.p99} ms | retention removed ` +
    `${r.gatewayRetention.sluice_retention_removed_jobs_total ?? '?'} lag ` +
    `${r.gatewayRetention.sluice_retention_lag_seconds ?? '?'} s | valkey ${mib(r.redis.usedMemory)} MiB ${streamLen} | ${cpu}`
  );
}

export interface Flatness {
  metric: string;
  min: number;
  max: number;
  median: number;
  /** Largest |value / median − 1|, %. */
  worstPct: number;
  within10: boolean;
}

/** The series the flatness check covers, per row. */
function series(r: SoakRow): Record<string, number> {
  const out: Record<string, number> = {
    'jobs rows (live)': table(r, 'jobs')?.liveRows ?? NaN,
    'jobs total bytes': table(r, 'jobs')?.totalBytes ?? NaN,
    'job_events total bytes': table(r, 'job_events')?.totalBytes ?? NaN,
    'all tables total bytes': r.tables.reduce((a, t) => a + t.totalBytes, 0),
    'WAL bytes per job': r.walBytesPerJob,
    'valkey used_memory': r.redis.usedMemory,
    'dispatch→start p50 ms': r.dispatchToStart.p50,
    'dispatch→start p99 ms': r.dispatchToStart.p99,
    'accept insert mean ms': r.accept?.meanMs ?? NaN,
    'claim read mean ms': r.claim?.meanMs ?? NaN,
    'terminal write mean ms': r.write?.meanMs ?? NaN,
    'settled jobs/s': r.settledPerSec,
  };
  for (const [name, p] of Object.entries(r.procs)) {
    out[`${name} RSS MiB`] = p.rssMiB;
    out[`${name} CPU ms/1k jobs`] = p.cpuMsPer1k;
  }
  return out;
}

export function flatness(rows: readonly SoakRow[], afterS: number): Flatness[] {
  const steady = rows.filter((r) => r.elapsedS >= afterS);
  if (steady.length < 2) return [];
  const names = Object.keys(series(steady[0]!));
  return names.map((metric) => {
    const values = steady.map((r) => series(r)[metric]!).filter(Number.isFinite);
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
    const worst = Math.max(...values.map((v) => Math.abs(v / median - 1)));
    return {
      metric,
      min: sorted[0] ?? NaN,
      max: sorted[sorted.length - 1] ?? NaN,
      median,
      worstPct: worst * 100,
      within10: worst <= 0.1,
    };
  });
}

export function markdown(o: {
  title: string;
  setup: string[];
  rows: readonly SoakRow[];
  flat: readonly Flatness[];
  afterS: number;
  audit: Record<string, unknown>;
}): string {
  const lines = [`# ${o.title}`, '', ...o.setup.map((s) => `- ${s}`), '', '## Rows', ''];
  lines.push(
    '| # | t s | load1 | accepted | settled | backlog | jobs/s | jobs rows | jobs MiB | dead | ' +
      'events MiB | all MiB | WAL B/job | claim mean/max ms | write mean/max ms | d→s p50/p99 ms | ' +
      'valkey MiB | CPU % (gw, wk, pg, valkey) |',
    '|' + '---|'.repeat(18),
  );
  for (const r of o.rows) {
    const j = table(r, 'jobs');
    const e = table(r, 'job_events');
    const all = r.tables.reduce((a, t) => a + t.totalBytes, 0);
    const sum = (prefix: string) =>
      Object.entries(r.procs)
        .filter(([k]) => k.startsWith(prefix))
        .reduce((a, [, p]) => a + p.cpuPct, 0)
        .toFixed(0);
    lines.push(
      `| ${r.n} | ${r.elapsedS.toFixed(0)} | ${r.load1.toFixed(1)} | ${r.accepted} | ${r.settled} | ` +
        `${r.backlog} | ${r.settledPerSec.toFixed(0)} | ${j?.liveRows ?? 0} | ${mib(j?.totalBytes ?? 0)} | ` +
        `${j?.deadRows ?? 0} | ${mib(e?.totalBytes ?? 0)} | ${mib(all)} | ${r.walBytesPerJob.toFixed(0)} | ` +
        `${f1(r.claim?.meanMs)}/${f1(r.claim?.maxMs)} | ${f1(r.write?.meanMs)}/${f1(r.write?.maxMs)} | ` +
        `${r.dispatchToStart.p50}/${r.dispatchToStart.p99} | ${mib(r.redis.usedMemory)} | ` +
        `${sum('gateway')}, ${sum('worker')}, ${sum('postgres')}, ${sum('valkey')} |`,
    );
  }
  lines.push(
    '',
    `## Flatness after ${o.afterS} s (target: every value within ±10 % of the median)`,
  );
  lines.push(
    '',
    '| metric | min | median | max | worst | within ±10 % |',
    '|---|---|---|---|---|---|',
  );
  for (const f of o.flat)
    lines.push(
      `| ${f.metric} | ${f.min.toFixed(1)} | ${f.median.toFixed(1)} | ${f.max.toFixed(1)} | ` +
        `${f.worstPct.toFixed(1)} % | ${f.within10 ? 'yes' : 'NO'} |`,
    );
  if (o.flat.length === 0) lines.push('', 'Fewer than two rows after the first retention window.');
  lines.push('', '## Audit', '', '```json', JSON.stringify(o.audit, null, 2), '```', '');
  return lines.join('\n');
}
