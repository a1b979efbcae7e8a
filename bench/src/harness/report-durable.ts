// Row 11's extra tables in the markdown: what each system keeps durable per job (a sentence from
// its adapter) and what it measurably wrote per job, table by table (pg_stat_user_tables deltas
// from detail.cost.database.tablesPerJob, median over rounds).
import type { BenchAdapter } from '../adapter.js';
import type { TableWrites } from './pg-tables.js';
import type { RoundRecord } from './rounds.js';
import { median } from './stats.js';

const ROW = 11;

function tablesOf(record: RoundRecord): Record<string, TableWrites> | undefined {
  const cost = record.detail.cost as { database?: { tablesPerJob?: unknown } } | undefined;
  const tables = cost?.database?.tablesPerJob;
  return tables && typeof tables === 'object' ? (tables as Record<string, TableWrites>) : undefined;
}

const num = (v: number) => (v >= 10 ? v.toFixed(1) : Number(v.toFixed(3)).toString());

/** `jobs: 1 upd (0 HOT) · job_events: 1 ins` from the median of each counter over rounds. */
function describe(runs: readonly Record<string, TableWrites>[]): string {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r)))].sort();
  const parts: string[] = [];
  for (const name of names) {
    const pick = (key: keyof TableWrites) => median(runs.map((r) => r[name]?.[key] ?? 0));
    const [ins, upd, hot, del] = [
      pick('inserted'),
      pick('updated'),
      pick('hotUpdated'),
      pick('deleted'),
    ];
    if (ins + upd + del < 0.01) continue; // bookkeeping touched once per run, not per job
    const what = [
      ins > 0 ? `${num(ins)} ins` : '',
      upd > 0 ? `${num(upd)} upd (${num(hot)} HOT)` : '',
      del > 0 ? `${num(del)} del` : '',
    ].filter(Boolean);
    parts.push(`${name}: ${what.join(', ')}`);
  }
  return parts.join(' · ') || '—';
}

export function durableWorkTables(
  records: readonly RoundRecord[],
  scenarioRows: ReadonlyMap<string, number>,
  adapters: ReadonlyMap<string, BenchAdapter>,
): string[] {
  const mine = records.filter((r) => r.ok && scenarioRows.get(r.scenario) === ROW);
  if (mine.length === 0) return [];
  const ids = [...new Set(mine.map((r) => r.adapter))];
  const out = [
    '',
    '### Row 11: what each system keeps durable per job',
    '',
    '| system | durable per job |',
    '|---|---|',
    ...ids.map(
      (id) => `| ${adapters.get(id)?.label ?? id} | ${adapters.get(id)?.durableWork ?? '—'} |`,
    ),
    '',
    '### Row 11: rows written per job, by table (median over rounds)',
    '',
    '| scenario | system | table: inserts, updates (of them HOT), deletes per completed job |',
    '|---|---|---|',
  ];
  for (const scenario of [...new Set(mine.map((r) => r.scenario))]) {
    for (const id of ids) {
      const runs = mine
        .filter((r) => r.scenario === scenario && r.adapter === id)
        .map(tablesOf)
        .filter((t): t is Record<string, TableWrites> => t !== undefined);
      if (runs.length > 0)
        out.push(`| ${scenario} | ${adapters.get(id)?.label ?? id} | ${describe(runs)} |`);
    }
  }
  out.push(
    '',
    'Drain rows count the run only (the prefill wrote each job before the clock); latency rows ' +
      "count a job's whole life (the producer's accept path is in the window). Systems without " +
      'PostgreSQL have no row: their storage writes are in the per-job cost table (engine server ' +
      'storage bytes) and the sentence above.',
  );
  return out;
}
