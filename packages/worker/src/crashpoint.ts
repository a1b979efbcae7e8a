// Named crash points for the crash-point matrix (reliability-anchors Appendix A). With
// `CRASHPOINTS=name@n[,name@n]` in the environment the n-th hit of `crashpoint(name)` in this
// process SIGKILLs the process itself: no `finally`, no handlers, no flush, exactly like an
// external `kill -9`. `name@n:stop` SIGSTOPs it instead, at exactly that point, for zombie tests
// (the test SIGCONTs it later). Without the variable every call is a no-op costing one lookup.

/** Every crash point the worker has, in the order an attempt passes them. */
export const CRASH_POINTS = [
  /** The attempt started (job row `running`), nothing else happened yet. */
  'after-claim',
  /** The ledger row of a provider call is committed; nothing was sent. */
  'after-call-intent',
  /** The request was handed to the socket; no answer yet (the provider may still commit). */
  'after-request-sent',
  /** A pollable call's external id is recorded; polling has not started. */
  'after-external-id',
  /** The provider's answer is in the ledger; the unit checkpoint is not stored yet. */
  'after-call-outcome',
  /** An asset's bytes are in this attempt's staging key; nothing is published yet. */
  'after-blob-write-before-publish',
  /** The staging blob is published at the final key; the asset row is not committed. */
  'after-publish-before-row',
  /** A unit's checkpoint is stored. */
  'after-unit-checkpoint',
  /** finalize returned; its output is not stored yet (a retry runs finalize again). */
  'during-finalize',
  /** The terminal transaction committed; the delivery is not acknowledged yet. */
  'after-terminal-before-ack',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

type Signal = 'SIGKILL' | 'SIGSTOP';

function parsePlan(spec: string | undefined): Map<string, { n: number; signal: Signal }> {
  const plan = new Map<string, { n: number; signal: Signal }>();
  for (const part of (spec ?? '').split(',')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const [name = '', rest = '1'] = trimmed.split('@');
    const [nth = '1', mode] = rest.split(':');
    const n = Number(nth);
    if (
      !(CRASH_POINTS as readonly string[]).includes(name) ||
      !Number.isInteger(n) ||
      n < 1 ||
      (mode !== undefined && mode !== 'stop')
    ) {
      // A typo must not silently mean "no crash": the matrix would pass without crashing.
      throw new Error(`CRASHPOINTS: unknown crash point or count "${trimmed}"`);
    }
    plan.set(name, { n, signal: mode === 'stop' ? 'SIGSTOP' : 'SIGKILL' });
  }
  return plan;
}

const plan = parsePlan(process.env.CRASHPOINTS);
const hits = new Map<string, number>();

export function crashpoint(name: CrashPoint): void {
  if (plan.size === 0) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  const step = plan.get(name);
  if (step?.n === n) {
    process.stderr.write(`CRASHPOINT ${name}@${n}: ${step.signal}\n`);
    process.kill(process.pid, step.signal);
  }
}
