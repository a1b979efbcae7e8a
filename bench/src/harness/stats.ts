// Order statistics for rounds and latency samples, and the paired ratio that the report ships.

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export type Better = 'higher' | 'lower';

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function spread(values: readonly number[]): Spread {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  return {
    median: median(finite),
    min: Math.min(...finite),
    max: Math.max(...finite),
    n: finite.length,
  };
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function summarizeLatency(samples: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const list = Array.from(sorted);
  let sum = 0;
  for (const v of list) sum += v;
  return {
    count: list.length,
    p50: percentile(list, 50),
    p90: percentile(list, 90),
    p99: percentile(list, 99),
    max: list.length ? (list[list.length - 1] as number) : Number.NaN,
    mean: list.length ? sum / list.length : Number.NaN,
  };
}

/**
 * How many times better `subject` is than `reference` in one round: subject ÷ reference when
 * higher is better (throughput), reference ÷ subject when lower is better (latency, CPU).
 * Above 1 always means the subject wins.
 */
export function advantage(subject: number, reference: number, better: Better): number {
  if (!Number.isFinite(subject) || !Number.isFinite(reference)) return Number.NaN;
  if (subject <= 0 || reference <= 0) return Number.NaN;
  return better === 'higher' ? subject / reference : reference / subject;
}

/** Per-round advantages over the rounds where both sides produced a figure. */
export function pairedAdvantages(
  subject: ReadonlyMap<number, number>,
  reference: ReadonlyMap<number, number>,
  better: Better,
): number[] {
  const ratios: number[] = [];
  for (const [round, s] of subject) {
    const r = reference.get(round);
    if (r !== undefined) ratios.push(advantage(s, r, better));
  }
  return ratios.filter((v) => Number.isFinite(v));
}
