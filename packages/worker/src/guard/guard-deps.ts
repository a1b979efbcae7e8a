// What one attempt's guard works with, and small helpers its parts share.

import type { ProviderCall } from '@sluice/contracts';
import type { CallLedger } from './call-ledger.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { CallTraceParent } from '../tracing/attempt-trace.js';
import type { LimitWait, ProviderLimiter } from './provider-limiter.js';
import type { SendRequest } from './request-shape.js';

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
  /** Where the unit's ledger is read and written (call-ledger.ts: the database, or a gateway). */
  ledger: CallLedger;
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
  /**
   * Sends a request over a connection the guard owns: node:http on Node (it can tell a request
   * that never left), fetch on Workers. Injected so the guard imports no runtime's network stack.
   */
  send: SendRequest;
  /** Default per-request deadline (30 s). */
  timeoutMs?: number | undefined;
  /** Test seams (crash points, injected decisions); the real ones by default. */
  hooks?: WorkerHooks | undefined;
  /** Shared provider limits (none: calls are not limited). */
  limiter?: ProviderLimiter | undefined;
  /** A call started waiting for a provider limit (the attempt records a `waiting` event). */
  onWait?: ((wait: LimitWait) => void) | undefined;
}

/** Answers up to this size (JSON) are kept in the ledger, so a later attempt can reuse them. */
export const LEDGER_ANSWER_LIMIT_BYTES = 64 * 1024;

export function keepable(answer: unknown): boolean {
  try {
    return utf8Length(JSON.stringify(answer) ?? '') <= LEDGER_ANSWER_LIMIT_BYTES;
  } catch {
    return false;
  }
}

/** Bytes of `text` as UTF-8 (Buffer.byteLength without Node). */
export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/**
 * Deterministic per (job, unit, call): every retry of a call sends the same key. WebCrypto, so the
 * guard runs in workerd too; `idempotency-key.ts` is the synchronous Node twin (pinned equal).
 */
export async function idempotencyKeyOfWeb(
  jobId: string,
  unitKey: string,
  callName: string,
): Promise<string> {
  const data = new TextEncoder().encode(`${jobId}\u0000${unitKey}\u0000${callName}`);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  let binary = '';
  for (const b of digest) binary += String.fromCharCode(b);
  const b64url = btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `sluice-${b64url.slice(0, 32)}`;
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
