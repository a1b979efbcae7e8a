// `sluice jobs watch` on a terminal: one line redrawn in place. Progress data is the job's own
// shape; a bar needs a fraction, read from the common shapes ({ done, total }, { fraction },
// { percent }). Without one, the bar counts finished units instead.

export interface ProgressState {
  state: string;
  fraction: number | undefined;
  unitsDone: number;
}

/** A fraction in [0, 1] from a progress event's data, if it carries one. */
export function progressFraction(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const done = num(d.done);
  const total = num(d.total);
  let f: number | undefined;
  if (done !== undefined && total !== undefined && total > 0) f = done / total;
  else if (num(d.fraction) !== undefined) f = num(d.fraction);
  else if (num(d.percent) !== undefined) f = (num(d.percent) as number) / 100;
  return f === undefined ? undefined : Math.min(1, Math.max(0, f));
}

/** `[##########----------]  50%  running  (3 units done)`, `width` cells of bar. */
export function renderProgressLine(p: ProgressState, width = 30): string {
  const units = `${p.unitsDone} unit${p.unitsDone === 1 ? '' : 's'} done`;
  if (p.fraction === undefined) return `${p.state}  (${units})`;
  const filled = Math.round(p.fraction * width);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
  const pct = `${Math.round(p.fraction * 100)}%`.padStart(4);
  return `[${bar}] ${pct}  ${p.state}  (${units})`;
}
