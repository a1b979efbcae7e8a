// Bounded concurrency for the units of one stage. Unlike Hono's `concurrent.ts`, a task that
// throws frees its slot, every task settles, and a failure never hides the others: the pool
// rejects with `UnitsFailedError` carrying every cause. Aborting stops starting new tasks; tasks
// already running get the signal and are waited for, so nothing writes after the pool returns.

import { UnitsFailedError } from '@sluice/contracts';

export interface PoolTask<T> {
  readonly key: string;
  run(): Promise<T>;
}

export async function runPool<T>(
  tasks: readonly PoolTask<T>[],
  opts: { concurrency: number; signal?: AbortSignal | undefined },
): Promise<T[]> {
  const limit = Math.max(1, Math.floor(opts.concurrency));
  const results = new Array<T>(tasks.length);
  const failures: { index: number; unitKey: string; error: unknown }[] = [];
  let next = 0;

  async function lane(): Promise<void> {
    while (next < tasks.length && !opts.signal?.aborted) {
      const index = next++;
      const task = tasks[index] as PoolTask<T>;
      try {
        results[index] = await task.run();
      } catch (error) {
        failures.push({ index, unitKey: task.key, error });
      }
    }
  }

  // One unit (the common shape) needs no second promise around its lane.
  if (tasks.length === 1 || limit === 1) await lane();
  else await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  if (failures.length > 0) {
    failures.sort((a, b) => a.index - b.index);
    throw new UnitsFailedError(failures.map(({ unitKey, error }) => ({ unitKey, error })));
  }
  if (opts.signal?.aborted) throw abortReason(opts.signal);
  return results;
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('aborted', 'AbortError');
}
