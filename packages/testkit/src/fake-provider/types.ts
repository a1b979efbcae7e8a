// Wire-level vocabulary of the fake paid provider, shared by the server, the ledger and the
// client helper. Kept free of node:* imports so type-only consumers pull in nothing.

/** Billable endpoints plus the async status poll (which never bills but can carry faults). */
export const FAKE_PROVIDER_ENDPOINTS = ['sync', 'async', 'async-poll', 'safe'] as const;
export type FakeProviderEndpoint = (typeof FAKE_PROVIDER_ENDPOINTS)[number];

/** Paths of the provider API, by endpoint name. */
export const FAKE_PROVIDER_PATHS = {
  sync: '/v1/sync/generate',
  async: '/v1/async/jobs',
  'async-poll': '/v1/async/jobs/:id',
  safe: '/v1/safe/generate',
} as const satisfies Record<FakeProviderEndpoint, string>;

/**
 * What a fault does, and whether the provider bills:
 * - error-before-processing: 503, no billing.
 * - commit-then-drop: bills, then destroys the socket without answering.
 * - http-4xx: 422, no billing (a clear rejection).
 * - http-5xx: 500 after billing (ambiguous for the caller).
 * - slow: waits `delayMs`, then processes (and bills) normally, even if the caller gave up.
 * - hang: never answers and never bills.
 * - async-fail: the async job is accepted and billed, then ends `failed`.
 */
export const FAULTS = [
  'error-before-processing',
  'commit-then-drop',
  'http-4xx',
  'http-5xx',
  'slow',
  'hang',
  'async-fail',
] as const;
export type Fault = (typeof FAULTS)[number];

export interface FaultRule {
  endpoint?: FakeProviderEndpoint;
  unitKey?: string;
  jobId?: string;
  fault: Fault;
  /** How many matching requests this rule applies to; default 1. */
  times?: number;
  /** For `slow`; default 2000 ms. */
  delayMs?: number;
}

/** How the provider disposed of one request, as recorded in the ledger. */
export const CALL_OUTCOMES = [
  'ok',
  'rejected-503',
  'rejected-4xx',
  'failed-5xx',
  'dropped',
  'hung',
] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/**
 * One ledger line. Every request to a billable endpoint that carried valid job headers leaves
 * exactly one record, billed or not, so tests can count both bills and arrivals. Polls leave none.
 */
export interface LedgerRecord {
  seq: number;
  endpoint: Exclude<FakeProviderEndpoint, 'async-poll'>;
  /** The `Idempotency-Key` header, or null. */
  requestId: string | null;
  jobId: string;
  unitKey: string;
  attemptId: string | null;
  billed: boolean;
  /** Safe endpoint: answered from an earlier call with the same key (billed is then false). */
  deduplicated: boolean;
  outcome: CallOutcome;
  fault: Fault | null;
  callId: string;
  externalJobId?: string;
  /** Async jobs: the terminal status the job will reach, and when (epoch ms). */
  asyncStatus?: 'succeeded' | 'failed';
  readyAt?: number;
  /** Kept so a deduplicated replay answers the first result, even after a provider restart. */
  result?: unknown;
  /** ISO-8601 UTC. */
  at: string;
}

export interface LedgerSummaryRow {
  jobId: string;
  unitKey: string;
  /** Records with billed = true. */
  billed: number;
  /** All requests recorded for this unit (billed or not). */
  requests: number;
  externalJobIds: string[];
  dedupHits: number;
}

export interface LedgerFilter {
  endpoint?: LedgerRecord['endpoint'];
  jobId?: string;
  unitKey?: string;
  attemptId?: string;
}
