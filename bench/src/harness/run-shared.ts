// Pieces every run shares: the outcome shape, forking consumers until all are ready, counting
// completions across children, and a timeout that can be cleared.
import { randomBytes } from 'node:crypto';
import type { HandlerSpec } from '../adapter.js';
import { forkChild, stopAll, type ChildHandle } from './children.js';

export interface RunOutcome {
  /** Figures the report compares (jobsPerSec, cpuMsPer1k, p99, …). */
  metrics: Record<string, number>;
  /** Everything else worth keeping in latest.json. */
  detail: Record<string, unknown>;
}

const READY_TIMEOUT_MS = 60_000;

export function newRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

/** Forks `count` consumers and waits until every one reported ready. */
export async function forkConsumers(
  module: string,
  config: Record<string, unknown>,
  opts: {
    count: number;
    concurrency: number;
    handler: HandlerSpec;
    sample: boolean;
    warmupJobs: number;
  },
): Promise<ChildHandle[]> {
  const children: ChildHandle[] = [];
  for (let index = 0; index < opts.count; index++) {
    children.push(
      forkChild({
        role: 'consumer',
        module,
        config,
        concurrency: opts.concurrency,
        index,
        handler: opts.handler,
        warmupJobs: opts.warmupJobs,
        sample: opts.sample,
      }),
    );
  }
  try {
    await Promise.all(children.map((c) => c.next('ready', READY_TIMEOUT_MS)));
  } catch (error) {
    await stopAll(children);
    throw error;
  }
  return children;
}

/** Resolves with the latest completion time once the children's counts add up to `target`. */
export function completionWatch(
  children: readonly ChildHandle[],
  target: number,
): { reached: Promise<number>; done(): number; lastAt(): number; firstAt(): number } {
  const counts = children.map(() => 0);
  let lastAt = 0;
  let firstAt = 0;
  let resolveReached: (at: number) => void = () => undefined;
  const reached = new Promise<number>((resolve) => (resolveReached = resolve));
  children.forEach((child, index) =>
    child.onProgress((message) => {
      counts[index] = message.done;
      lastAt = Math.max(lastAt, message.at);
      if (firstAt === 0 || message.at < firstAt) firstAt = message.at;
      if (counts.reduce((a, b) => a + b, 0) >= target) resolveReached(lastAt);
    }),
  );
  return {
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
  verify: (expected: number) => Promise<{ ok: boolean } & Record<string, unknown>>,
  expected: number,
): Promise<Record<string, unknown>> {
  const result = await verify(expected).catch((error: unknown) => ({
    ok: false,
    error: error instanceof Error ? error.message : String(error),
  }));
  if (!result.ok) console.error(`${adapter}: end-state check failed: ${JSON.stringify(result)}`);
  return result;
}
