// Test-only (excluded from the build like every *.case.ts): one provider call over a real socket.
import { FAKE_PROVIDER_PATHS } from './types.js';

export interface CallOptions {
  jobId?: string;
  unitKey?: string;
  attemptId?: string;
  idempotencyKey?: string;
  fault?: string;
  faultDelayMs?: number;
  body?: unknown;
  signal?: AbortSignal;
}

export function callProvider(
  baseUrl: string,
  endpoint: 'sync' | 'async' | 'safe',
  opts: CallOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.jobId !== '') headers['x-job-id'] = opts.jobId ?? 'job-1';
  if (opts.unitKey !== '') headers['x-unit-key'] = opts.unitKey ?? 'unit-1';
  headers['x-attempt-id'] = opts.attemptId ?? 'attempt-1';
  if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
  if (opts.fault) headers['x-fault'] = opts.fault;
  if (opts.faultDelayMs !== undefined) headers['x-fault-delay-ms'] = String(opts.faultDelayMs);
  return fetch(`${baseUrl}${FAKE_PROVIDER_PATHS[endpoint]}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(opts.body ?? { prompt: 'a cat' }),
    signal: opts.signal ?? AbortSignal.timeout(10_000),
  });
}

export function pollJob(
  baseUrl: string,
  externalJobId: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/v1/async/jobs/${encodeURIComponent(externalJobId)}`, {
    headers,
    signal: AbortSignal.timeout(10_000),
  });
}

/** The error code undici puts on a dropped connection (fetch's TypeError has it as `cause`). */
export function socketErrorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code;
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
