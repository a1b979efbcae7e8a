// Where a suite's wall time went, per scenario and participant: the suite has budgets (quick under
// 3 minutes, full under 20), and this table says which phase of which run to cut when it does not
// fit. Printed on stderr at the end of every run and kept in latest.json as `timeBudget`.
import type { RoundRecord } from './rounds.js';
import type { Phases } from './run-shared.js';

const PHASES = ['prepare', 'children', 'measure', 'verify', 'teardown'] as const;

export interface TimeBudgetLine {
  scenario: string;
  adapter: string;
  runs: number;
  /** Sum over rounds (s). */
  totalSeconds: number;
  /** Mean per run (s): wall, each phase, and what no phase covers (reset, gateway internals). */
  meanWallSeconds: number;
  meanPhaseSeconds: Partial<Record<keyof Phases | 'other', number>>;
  /** Runs whose clock stopped at the cap. */
  capped: number;
  /** Processes forked (not reused from the pool) over all rounds. */
  forkedChildren: number;
}

export interface TimeBudget {
  wallSeconds: number;
  /** Sum of every run's wall time. */
  runsSeconds: number;
  /** Everything else: starting and stopping services, hosts and pooled children, reporting. */
  suiteSeconds: number;
  rounds: number;
  lines: TimeBudgetLine[];
}

const round1 = (v: number) => Math.round(v * 10) / 10;

export function timeBudget(
  records: readonly RoundRecord[],
  wallSeconds: number,
  rounds: number,
): TimeBudget {
  const groups = new Map<string, RoundRecord[]>();
  for (const r of records) {
    const key = `${r.scenario}\t${r.adapter}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const lines: TimeBudgetLine[] = [];
  for (const [key, runs] of groups) {
    const [scenario = '', adapter = ''] = key.split('\t');
    const total = runs.reduce((a, r) => a + r.wallMs, 0) / 1000;
    const mean: TimeBudgetLine['meanPhaseSeconds'] = {};
    let covered = 0;
    for (const phase of PHASES) {
      const sum = runs.reduce((a, r) => a + (r.phases?.[phase] ?? 0), 0) / 1000;
      if (sum > 0) mean[phase] = round1(sum / runs.length);
      covered += sum;
    }
    mean.other = round1((total - covered) / runs.length);
    lines.push({
      scenario,
      adapter,
      runs: runs.length,
      totalSeconds: round1(total),
      meanWallSeconds: round1(total / runs.length),
      meanPhaseSeconds: mean,
      capped: runs.filter((r) => r.detail.capped === true).length,
      forkedChildren: runs.reduce((a, r) => a + Number(r.detail.forkedChildren ?? 0), 0),
    });
  }
  const runsSeconds = records.reduce((a, r) => a + r.wallMs, 0) / 1000;
  return {
    wallSeconds: round1(wallSeconds),
    runsSeconds: round1(runsSeconds),
    suiteSeconds: round1(wallSeconds - runsSeconds),
    rounds,
    lines,
  };
}

/** Plain text for stderr: one line per scenario × participant, seconds. */
export function renderTimeBudget(budget: TimeBudget): string {
  const cols = ['runs', 'total', 'mean', ...PHASES, 'other', 'capped', 'forked'];
  const header = [
    'scenario'.padEnd(18),
    'participant'.padEnd(24),
    ...cols.map((c) => c.padStart(8)),
  ];
  const out = [
    `time budget: wall ${budget.wallSeconds.toFixed(0)} s = runs ${budget.runsSeconds.toFixed(0)} s ` +
      `(${(budget.runsSeconds / Math.max(1, budget.rounds)).toFixed(0)} s per round × ${budget.rounds}) ` +
      `+ suite ${budget.suiteSeconds.toFixed(0)} s (services, hosts, pooled children, report)`,
    header.join(' '),
  ];
  const f = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(1)).padStart(8);
  for (const l of budget.lines) {
    out.push(
      [
        l.scenario.padEnd(18),
        l.adapter.padEnd(24),
        String(l.runs).padStart(8),
        f(l.totalSeconds),
        f(l.meanWallSeconds),
        ...PHASES.map((p) => f(l.meanPhaseSeconds[p])),
        f(l.meanPhaseSeconds.other),
        String(l.capped).padStart(8),
        String(l.forkedChildren).padStart(8),
      ].join(' '),
    );
  }
  return out.join('\n');
}
