// Which checkpoints a rerun drops (pure). Checkpoints are stored under the worker's step names:
// `stage:prepare`, `unit:<key>` per unit, then `stage:apply` / `stage:finalize`. A rerun keeps
// the plan (prepare) and every unit's result, except — with `fromUnit` — that unit's and the
// units' stored after it, which run again. It always drops the stages after the units: they
// combine the units' results (and call no provider), so a rerun recomputes them. A requeue drops
// nothing: it is a retry.

const PREPARE = 'stage:prepare';
const UNIT = 'unit:';

/** The steps to drop, or undefined when `fromUnit` has no checkpoint. */
export function planRerun(stored: readonly string[], fromUnit?: string): string[] | undefined {
  const combine = stored.filter((k) => k !== PREPARE && !k.startsWith(UNIT));
  if (fromUnit === undefined) return combine;
  const at = stored.indexOf(`${UNIT}${fromUnit}`);
  if (at < 0) return undefined;
  return [...stored.slice(at).filter((k) => k.startsWith(UNIT)), ...combine];
}

/** A step name as a caller knows it: a unit's own key, or the stage's step name. */
export function unitKeyOf(step: string): string | null {
  return step.startsWith(UNIT) ? step.slice(UNIT.length) : null;
}
