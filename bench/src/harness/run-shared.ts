// Pieces every run shares: the outcome shape and its phase times, counting completions across
// children, a timeout that can be cleared, and the end-state check.
import { randomBytes } from 'node:crypto';
import type { VerifyExpectation } from '../adapter.js';
import type { ChildHandle } from './children.js';
import { monoMs } from './clock.js';

export interface RunOutcome {
  /** Figures the report compares (jobsPerSec, cpuMsPer1k, p99, …). */
  metrics: Record<string, number>;
  /** Everything else worth keeping in latest.json. */
  detail: Record<string, unknown>;
  /** Where the run's wall time went (harness-driven runs; gateway runs report none). */
  phases?: Phases;
}

export function newRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

/**
 * Where one run's wall time went (ms), for the suite's time budget: `prepare` (fresh queue or
 * database and the untimed prefill), `children` (forking new processes or initialising pooled
 * ones until all are ready), `measure` (go → clock stopped, plus a latency run's drain),
 * `verify` (end-state check, sample collection) and `teardown` (ending the run in the children,
 * cleanup).
 */
export type Phases = Partial<
  Record<'prepare' | 'children' | 'measure' | 'verify' | 'teardown', number>
>;

/** Accumulates phase durations: `mark('x')` charges the time since the previous mark to x. */
export function phaseClock(): { mark(phase: keyof Phases): void; phases: Phases } {
  const phases: Phases = {};
  let last = monoMs();
  return {
    phases,
    mark(phase) {
      const now = monoMs();
      phases[phase] = (phases[phase] ?? 0) + (now - last);
      last = now;
    },
  };
}

/** Resolves with the latest completion time once the children's counts add up to `target`. */
export function completionWatch(
  children: readonly ChildHandle[],
  target: number,
): {
  reached: Promise<number>;
  done(): number;
  lastAt(): number;
  firstAt(): number;
  /** Stops listening (the children serve other runs afterwards). */
  close(): void;
} {
  const counts = children.map(() => 0);
  let lastAt = 0;
  let firstAt = 0;
  let resolveReached: (at: number) => void = () => undefined;
  const reached = new Promise<number>((resolve) => (resolveReached = resolve));
  const unsubscribe = children.map((child, index) =>
    child.onProgress((message) => {
      counts[index] = message.done;
      lastAt = Math.max(lastAt, message.at);
      if (firstAt === 0 || message.at < firstAt) firstAt = message.at;
      if (counts.reduce((a, b) => a + b, 0) >= target) resolveReached(lastAt);
    }),
  );
  return {
    close: () => unsubscribe.forEach((fn) => fn()),
    reached,
    done: () => counts.reduce((a, b) => a + b, 0),
    lastAt: () => lastAt,
    firstAt: () => firstAt,
  };
}

export function timeout(ms: number, what: string): { promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  return { promise, clear: () => clearTimeout(timer) };
}

/**
 * Runs an adapter's end-state check (`PreparedRun.verify`) and warns on stderr when it fails; the
 * result is kept in the run's detail, never thrown, so the figures of a bad run stay visible.
 */
export async function checkEndState(
  adapter: string,
  verify: (expected: VerifyExpectation) => Promise<{ ok: boolean } & Record<string, unknown>>,
  expected: VerifyExpectation,
): Promise<Record<string, unknown>> {
  const result = await verify(expected).catch((error: unknown) => ({
    ok: false,
    error: error instanceof Error ? error.message : String(error),
  }));
  if (!result.ok) console.error(`${adapter}: end-state check failed: ${JSON.stringify(result)}`);
  return result;
}
