// What the Workflows engine expects of a run beyond `step.do`: its interruptions pass through
// unchanged, and step results stay within production's size limit.

import { isUnitsFailedError, NonRetriableError } from '@sluice/contracts';
import { utf8Length } from '@sluice/worker/platform';

/**
 * The engine's own interruption: a step rejected with an "Aborting engine: …" error (the
 * engine's protocol for pause, terminate and restart; the run must let it through). Found also
 * inside a stage's `UnitsFailedError`.
 */
export function engineAbortIn(error: unknown): unknown {
  if (isEngineAbort(error)) return error;
  if (isUnitsFailedError(error) && Array.isArray(error.causes)) {
    for (const c of error.causes) if (isEngineAbort(c.error)) return c.error;
  }
  return undefined;
}

export function isEngineAbort(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('Aborting engine:');
}

/** Production keeps at most 1 MiB per step result (the local engine accepts more, measured). */
export const STEP_RESULT_LIMIT_BYTES = 1024 * 1024;

/**
 * Refuses a step result production would refuse, here too, where the local engine would let it
 * pass: a job that works in `wrangler dev` must not fail only once deployed. Measured as JSON
 * (close to the structured-clone size for the plain data steps return).
 */
export function assertStepResultFits(name: string, value: unknown): void {
  let size: number;
  try {
    size = utf8Length(JSON.stringify(value) ?? '');
  } catch {
    return; // not JSON (a BigInt, a cycle): the engine's own serialiser decides
  }
  if (size > STEP_RESULT_LIMIT_BYTES) {
    throw new NonRetriableError(
      `step "${name}" returned ${size} bytes; Workflows keeps at most ${STEP_RESULT_LIMIT_BYTES} bytes per step result: write large data with ctx.assets and return its key`,
    );
  }
}
