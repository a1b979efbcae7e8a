// From every round to the figures the table prints: per adapter and metric, median/min/max over the
// rounds; per comparison, the median/min/max of the per-round paired ratios.
import type { BenchAdapter } from '../adapter.js';
import { participants, type Role, type Scenario } from '../scenarios.js';
import { COST_DETAIL_KEYS, CPU_DETAIL_KEYS, metricDefs } from './metrics.js';
import type { RoundRecord } from './rounds.js';
import { pairedAdvantages, spread, type Spread } from './stats.js';

export interface ParticipantSummary {
  adapter: string;
  role: Role;
  /** Why it did not run (not built, no producer, …); absent when it ran. */
  unavailable?: string;
  rounds: number;
  failures: number;
  metrics: Record<string, Spread>;
}

export interface ComparisonSummary {
  subject: string;
  reference: string;
  kind: 'vs-anchor' | 'vs-ceiling' | 'ceiling-vs-anchor' | 'anchor-vs-anchor';
  metric: string;
  /** Advantage per round (above 1 = `subject` better), summarised. */
  advantage: Spread;
}

export interface ScenarioSummary {
  scenario: string;
  row: number;
  title: string;
  participants: ParticipantSummary[];
  comparisons: ComparisonSummary[];
}

function byRound(
  records: readonly RoundRecord[],
  adapter: string,
  metric: string,
): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of records) {
    const value = r.metrics[metric];
    if (r.ok && r.adapter === adapter && value !== undefined) out.set(r.round, value);
  }
  return out;
}

export function summarizeScenario(
  scenario: Scenario,
  records: readonly RoundRecord[],
  adapters: ReadonlyMap<string, BenchAdapter>,
  unsupported: (adapter: BenchAdapter) => string | undefined,
): ScenarioSummary {
  const mine = records.filter((r) => r.scenario === scenario.id);
  const defs = metricDefs(scenario.spec);
  const keys = [
    ...defs.map((d) => d.key),
    ...CPU_DETAIL_KEYS.map(([k]) => k),
    ...COST_DETAIL_KEYS.map(([k]) => k),
  ];
  const list: ParticipantSummary[] = participants(scenario).map(({ role, adapter }) => {
    const known = adapters.get(adapter);
    const why = known ? unsupported(known) : 'unknown adapter';
    const runs = mine.filter((r) => r.adapter === adapter);
    const metrics: Record<string, Spread> = {};
    for (const key of keys) {
      const values = [...byRound(mine, adapter, key).values()];
      if (values.length > 0) metrics[key] = spread(values);
    }
    return {
      adapter,
      role,
      ...(why ? { unavailable: why } : {}),
      rounds: runs.length,
      failures: runs.filter((r) => !r.ok).length,
      metrics,
    };
  });
  const comparisons: ComparisonSummary[] = [];
  const compare = (subject: string, reference: string, kind: ComparisonSummary['kind']) => {
    for (const def of defs) {
      const ratios = pairedAdvantages(
        byRound(mine, subject, def.key),
        byRound(mine, reference, def.key),
        def.better,
      );
      if (ratios.length > 0)
        comparisons.push({ subject, reference, kind, metric: def.key, advantage: spread(ratios) });
    }
  };
  const [main, ...others] = scenario.anchors;
  for (const subject of scenario.subjects) {
    for (const anchor of scenario.anchors) compare(subject, anchor, 'vs-anchor');
    if (scenario.ceiling) compare(subject, scenario.ceiling, 'vs-ceiling');
  }
  if (scenario.ceiling)
    for (const anchor of scenario.anchors) compare(scenario.ceiling, anchor, 'ceiling-vs-anchor');
  if (main) for (const other of others) compare(other, main, 'anchor-vs-anchor');
  return {
    scenario: scenario.id,
    row: scenario.row,
    title: scenario.title,
    participants: list,
    comparisons,
  };
}
