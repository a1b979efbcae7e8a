// What one attempt's guard works with, and small helpers its parts share.

import { createHash } from 'node:crypto';
import type { ProviderCall } from '@sluice/contracts';
import type { SluiceDatabase } from '@sluice/storage';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { CallTraceParent } from '../tracing/attempt-trace.js';

/** The worker counters the guard moves (a subset of `WorkerCounters`). */
export interface GuardCounters {
  /** Requests attempted (each with its ledger row written first; `never_sent` ones included). */
  providerCalls: number;
  /** Calls answered from the ledger instead of paying again. */
  providerAnswersReused: number;
  /** Calls refused before sending because their declaration classifies fail-closed. */
  failClosedRefusals: number;
}

/** The attempt as the guard needs it: the job row's identity and budget. */
export interface GuardJob {
  readonly id: string;
  readonly tenantId: string;
  readonly epoch: number;
  readonly attemptId: string;
  /** This attempt's number and the job's budget (from the database). */
  readonly attempts: number;
  readonly maxAttempts: number;
  /** W3C `traceparent` the job was submitted under (sent on when there is no span of ours). */
  readonly traceContext?: string | null | undefined;
}

export interface GuardDeps {
  database: SluiceDatabase;
  job: GuardJob;
  /** The job definition's `providers`. */
  declarations: Readonly<Record<string, ProviderCall>>;
  signal: AbortSignal;
  logger: WorkerLogger;
  counters?: GuardCounters | undefined;
  /** The attempt's span, parent of each request's span (none: tracing is off). */
  trace?: CallTraceParent | undefined;
  /** Duration of each request sent (declaration class, ledger outcome, seconds). */
  observeCall?: ((callClass: string, outcome: string, seconds: number) => void) | undefined;
  /** A ledger write was fenced: the attempt lost its job. */
  onFenced(): void;
  /**
   * Runs before a call reads the unit's ledger and writes its row: the attempt's lazy start
   * lands first, so no earlier holder can add a ledger row this call would not see.
   */
  beforeWrite?: ((unitKey: string) => Promise<void>) | undefined;
  /** Retries in place of a call the recovery table says to retry (retry-safe, never sent). */
  retry?: { maxTries?: number; baseMs?: number; maxMs?: number } | undefined;
  /** Default per-request deadline (30 s). */
  timeoutMs?: number | undefined;
  /** Test seams (crash points, injected decisions); the real ones by default. */
  hooks?: WorkerHooks | undefined;
}

/** Answers up to this size (JSON) are kept in the ledger, so a later attempt can reuse them. */
export const LEDGER_ANSWER_LIMIT_BYTES = 64 * 1024;

export function keepable(answer: unknown): boolean {
  try {
    return Buffer.byteLength(JSON.stringify(answer) ?? '') <= LEDGER_ANSWER_LIMIT_BYTES;
  } catch {
    return false;
  }
}

/** Deterministic per (job, unit, call): every retry of a call sends the same key. */
export function idempotencyKeyOf(jobId: string, unitKey: string, callName: string): string {
  const digest = createHash('sha256').update(`${jobId}\u0000${unitKey}\u0000${callName}`);
  return `sluice-${digest.digest('base64url').slice(0, 32)}`;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
