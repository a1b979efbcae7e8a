// The markdown printed on stdout: one line per scenario × Sluice subject × metric, with the
// anchors (a second anchor on a line of its own), the raw Streams ceiling and the paired ratios;
// then the anchors against each other, the CPU split, the per-job cost and any failed run.
import type { BenchAdapter } from '../adapter.js';
import type { Scenario } from '../scenarios.js';
import {
  COST_DETAIL_KEYS,
  CPU_DETAIL_KEYS,
  formatValue,
  metricDefs,
  type MetricDef,
} from './metrics.js';
import type { ComparisonSummary, ParticipantSummary, ScenarioSummary } from './summarize.js';
import type { Spread } from './stats.js';

export interface ReportHeader {
  mode: string;
  rounds: number;
  machineLine: string;
  softwareLine: string;
  loadLine: string;
  wallSeconds: number;
}

function cell(s: Spread | undefined, def: MetricDef): string {
  if (!s || s.n === 0) return '—';
  const median = formatValue(s.median, def.format);
  if (s.n === 1) return median;
  return `${median} (${formatValue(s.min, def.format)}–${formatValue(s.max, def.format)})`;
}

function ratioCell(c: ComparisonSummary | undefined): string {
  if (!c) return '—';
  const f = (v: number) => (v >= 10 ? v.toFixed(1) : v.toFixed(2));
  const { median, min, max, n } = c.advantage;
  return n === 1 ? `${f(median)}×` : `${f(median)}× (${f(min)}–${f(max)})`;
}

function participantCell(p: ParticipantSummary | undefined, def: MetricDef): string {
  if (!p) return '—';
  if (p.unavailable) return `n/a (${p.unavailable})`;
  if (def.subjectOnly && p.role !== 'subject') return '—';
  if (p.rounds > 0 && p.failures === p.rounds) return 'failed';
  return cell(p.metrics[def.key], def);
}

function findComparison(
  s: ScenarioSummary,
  subject: string,
  reference: string | undefined,
  metric: string,
): ComparisonSummary | undefined {
  return s.comparisons.find(
    (c) => c.subject === subject && c.reference === reference && c.metric === metric,
  );
}

function label(adapters: ReadonlyMap<string, BenchAdapter>, id: string | undefined): string {
  return id ? (adapters.get(id)?.label ?? id) : '—';
}

interface Line {
  name: string;
  defs: MetricDef[];
  subject: string;
}

/**
 * The lines of one scenario: one per subject and metric. Subjects that cannot run yet share one
 * set of lines, and metrics only Sluice measures collapse into one line while it cannot run.
 */
function scenarioLines(
  scenario: Scenario,
  summary: ScenarioSummary,
  adapters: ReadonlyMap<string, BenchAdapter>,
): Line[] {
  const defs = metricDefs(scenario.spec);
  const find = (id: string) => summary.participants.find((p) => p.adapter === id);
  const pending = scenario.subjects.filter((id) => find(id)?.unavailable);
  const running = scenario.subjects.filter((id) => !find(id)?.unavailable);
  const lines: Line[] = [];
  const named = (ids: readonly string[]) =>
    scenario.subjects.length > 1
      ? `${scenario.title} — ${ids.map((id) => label(adapters, id)).join(', ')}`
      : scenario.title;
  for (const id of running) lines.push({ name: named([id]), defs, subject: id });
  if (pending.length > 0) {
    const shared = defs.filter((d) => !d.subjectOnly);
    const own = defs.filter((d) => d.subjectOnly);
    const merged: MetricDef[] = own.length
      ? [...shared, { ...own[0]!, label: own.map((d) => d.label).join(', ') }]
      : shared;
    lines.push({ name: named(pending), defs: merged, subject: pending[0] as string });
  }
  return lines;
}

function mainTable(
  scenarios: readonly Scenario[],
  summaries: readonly ScenarioSummary[],
  adapters: ReadonlyMap<string, BenchAdapter>,
): string[] {
  const lines = [
    '| # | scenario | metric | Sluice | anchor | anchor value | Sluice vs anchor | ceiling | Sluice vs ceiling |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  scenarios.forEach((scenario, index) => {
    const summary = summaries[index] as ScenarioSummary;
    const find = (id: string | undefined) => summary.participants.find((p) => p.adapter === id);
    const ceiling = find(scenario.ceiling);
    const [main, ...others] = scenario.anchors;
    for (const line of scenarioLines(scenario, summary, adapters)) {
      for (const def of line.defs) {
        const anchorCells = (id: string | undefined) =>
          id
            ? [
                label(adapters, id),
                participantCell(find(id), def),
                ratioCell(findComparison(summary, line.subject, id, def.key)),
              ]
            : ['—', '—', '—'];
        const ceilingCell = scenario.ceiling ? participantCell(ceiling, def) : '—';
        const vsCeiling = findComparison(summary, line.subject, scenario.ceiling, def.key);
        lines.push(
          `| ${scenario.row} | ${line.name} | ${def.label} | ${participantCell(find(line.subject), def)} | ` +
            `${anchorCells(main).join(' | ')} | ${ceilingCell} | ${ratioCell(vsCeiling)} |`,
        );
        // Further anchors (rows 1–3: BullMQ on the AOF server; row 11: the durable engines) on
        // lines of their own, ratios paired with the same Sluice runs; none for a figure only
        // Sluice measures (they would all be dashes).
        if (!def.subjectOnly)
          for (const other of others)
            lines.push(`| ${scenario.row} | | | | ${anchorCells(other).join(' | ')} | | |`);
      }
    }
  });
  return lines;
}

const ANCHOR_KINDS: readonly ComparisonSummary['kind'][] = [
  'ceiling-vs-anchor',
  'anchor-vs-anchor',
];

/** The reference systems against each other: the ceiling vs each anchor, a second anchor vs the first. */
function anchorsTable(
  scenarios: readonly Scenario[],
  summaries: readonly ScenarioSummary[],
  adapters: ReadonlyMap<string, BenchAdapter>,
): string[] {
  const lines = ['| scenario | metric | comparison | paired ratio |', '|---|---|---|---|'];
  scenarios.forEach((scenario, index) => {
    const summary = summaries[index] as ScenarioSummary;
    for (const def of metricDefs(scenario.spec)) {
      for (const c of summary.comparisons) {
        if (!ANCHOR_KINDS.includes(c.kind) || c.metric !== def.key) continue;
        const what = `${label(adapters, c.subject)} vs ${label(adapters, c.reference)}`;
        lines.push(`| ${scenario.id} | ${def.label} | ${what} | ${ratioCell(c)} |`);
      }
    }
  });
  return lines.length > 2 ? lines : [];
}

/** Whether a CPU group can be non-zero for this adapter in this scenario. */
function applies(
  group: string,
  adapter: BenchAdapter | undefined,
  scenario: ScenarioSummary,
): boolean {
  if (group === 'cpuRedisMsPer1k')
    return adapter ? adapter.needs.some((n) => n === 'redis' || n === 'redis-aof') : true;
  if (group === 'cpuPostgresMsPer1k') return adapter?.needs.includes('postgres') ?? true;
  if (group === 'cpuProducerMsPer1k') return scenario.scenario.includes('latency');
  if (group === 'cpuEngineMsPer1k') return adapter?.queue?.engineServer === true;
  return true;
}

function cpuTable(
  summaries: readonly ScenarioSummary[],
  adapters: ReadonlyMap<string, BenchAdapter>,
): string[] {
  const lines = [
    `| scenario | system | ${CPU_DETAIL_KEYS.map(([, name]) => name).join(' | ')} |`,
    `|---|---|${CPU_DETAIL_KEYS.map(() => '---').join('|')}|`,
  ];
  const def: MetricDef = { key: '', label: '', better: 'lower', format: 'cpu' };
  for (const s of summaries) {
    for (const p of s.participants) {
      if (p.unavailable || !p.metrics.cpuWorkersMsPer1k) continue;
      const adapter = adapters.get(p.adapter);
      const cells = CPU_DETAIL_KEYS.map(([key]) =>
        applies(key, adapter, s) ? cell(p.metrics[key], def) : '—',
      );
      lines.push(`| ${s.scenario} | ${label(adapters, p.adapter)} | ${cells.join(' | ')} |`);
    }
  }
  return lines.length > 2 ? lines : [];
}

function costValue(value: number): string {
  if (!Number.isFinite(value)) return '—';
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  return value >= 10 ? value.toFixed(1) : value >= 1 ? value.toFixed(2) : value.toFixed(3);
}

/** Per-job cost of the runs that measured it (Sluice rows; statements also where a child used pg). */
function costTable(
  summaries: readonly ScenarioSummary[],
  adapters: ReadonlyMap<string, BenchAdapter>,
): string[] {
  const lines = [
    `| scenario | system | ${COST_DETAIL_KEYS.map(([, name]) => name).join(' | ')} |`,
    `|---|---|${COST_DETAIL_KEYS.map(() => '---').join('|')}|`,
  ];
  for (const s of summaries) {
    for (const p of s.participants) {
      if (p.unavailable || !COST_DETAIL_KEYS.some(([key]) => p.metrics[key])) continue;
      const cells = COST_DETAIL_KEYS.map(([key]) => {
        const v = p.metrics[key];
        if (!v || v.n === 0) return '—';
        const median = costValue(v.median);
        return v.n === 1 ? median : `${median} (${costValue(v.min)}–${costValue(v.max)})`;
      });
      lines.push(`| ${s.scenario} | ${label(adapters, p.adapter)} | ${cells.join(' | ')} |`);
    }
  }
  return lines.length > 2 ? lines : [];
}

export function renderMarkdown(
  header: ReportHeader,
  scenarios: readonly Scenario[],
  summaries: readonly ScenarioSummary[],
  adapters: ReadonlyMap<string, BenchAdapter>,
  failures: readonly string[],
  extra: readonly string[] = [],
): string {
  const out = [
    `## npm run bench (${header.mode}, ${header.rounds} interleaved rounds)`,
    '',
    `- ${header.machineLine}`,
    `- ${header.softwareLine}`,
    `- ${header.loadLine}; wall time ${header.wallSeconds.toFixed(0)} s`,
    '',
    ...mainTable(scenarios, summaries, adapters),
    '',
    'Cells: median over rounds (min–max). "vs" columns: median of per-round paired ratios (min–max); ' +
      'above 1× means Sluice is better (throughput: Sluice ÷ other; latency and CPU: other ÷ Sluice). ' +
      'Rows 1–3 have two anchors from the same rounds: BullMQ on a redis-server without persistence, ' +
      'and BullMQ (AOF everysec) on a second one with appendonly yes, appendfsync everysec. ' +
      'Ceiling: in rows 1–3 (row 4) raw XADD/XREADGROUP/XACK with no database; in row 6 a bare tRPC ' +
      'mutation served by the same gateway process (no auth, no validation, no database). ' +
      'Row 5 Sluice drains stop the clock at the cap in the title when not done by then (jobs/s over ' +
      'the jobs completed; see detail.completed). ' +
      "CPU counts worker processes, the system's private redis-server and the bench database's PostgreSQL backends " +
      "(not the shared cluster's WAL writer/checkpointer), from /proc utime+stime at 10 ms resolution; " +
      "in latency rows the redis-server figure includes the producer's adds.",
  ];
  const anchors = anchorsTable(scenarios, summaries, adapters);
  if (anchors.length) out.push('', '### Anchors against each other', '', ...anchors);
  const cpu = cpuTable(summaries, adapters);
  if (cpu.length)
    out.push('', '### CPU ms per 1,000 jobs, by process group (median, min–max)', '', ...cpu);
  const cost = costTable(summaries, adapters);
  if (cost.length)
    out.push(
      '',
      '### Per-job cost (median, min–max)',
      '',
      ...cost,
      '',
      'Per job the children completed from `go` until they closed the run (after the clock too, so ' +
        'a capped run counts the jobs its workers finished before stopping). statements and round ' +
        'trips: counted in the worker children (client side; pg: one round trip per query call; ' +
        "SQLite: statement executions, a native transaction's BEGIN and COMMIT included); producer: " +
        "row 3's accept path, apart. commits (xact_commit) and row writes (tup_inserted + " +
        'tup_updated + tup_deleted): pg_stat_database of the bench database, producer included; WAL ' +
        'bytes: pg_current_wal_lsn() difference, cluster-wide (other databases on this machine write ' +
        'WAL too, so it is an upper bound).',
    );
  out.push(...extra);
  if (failures.length) out.push('', '### Failed runs', '', ...failures.map((f) => `- ${f}`));
  return out.join('\n');
}
