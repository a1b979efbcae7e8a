// Every request limit of the gateway, with its default, in one place. docs/security.md
// documents the same table; `createGateway({ limits })` overrides any of them.

import type { Rate } from './token-bucket.js';

export interface Limits {
  /** Requests per API key (tRPC calls, subscriptions opened, uploads, downloads). */
  keyRate: Rate;
  /** Requests per tenant, all its keys together. */
  tenantRate: Rate;
  /**
   * Failed authentications per presented secret (the credential exactly as sent) before its
   * lookups stop; never per key id, whose owner would be locked out (auth/failed-auth-throttle.ts).
   */
  failedAuthPerSecret: Rate;
  /**
   * Failed authentications per client address before lookups stop (a secret this gateway
   * verified in the last 24 h is still looked up).
   */
  failedAuthPerAddress: Rate;
  /** Open subscriptions per API key, over every transport and gateway connection. */
  subscriptionsPerKey: number;
  /** Open subscriptions on one WebSocket. */
  subscriptionsPerSocket: number;
  /** Open WebSockets per API key. */
  socketsPerKey: number;
  /**
   * HTTP requests of one API key being served at once (calls, uploads, downloads; open SSE
   * streams count as subscriptions): one key cannot hold every connection of the gateway.
   */
  requestsPerKey: number;
  /**
   * Bytes a tenant may keep in the blob store — uploads plus its jobs' assets. Uploads that would
   * pass it are refused (413 `QUOTA_EXCEEDED`); assets are counted, never cut mid-job.
   */
  tenantStorageBytes: number;
  /** How often open streams' keys are re-checked for revocation and expiry (ms). */
  streamRecheckMs: number;
  /** How often `last_used_at` is written for the keys used since the last write (ms). */
  lastUsedFlushMs: number;
  /** Deepest JSON nesting accepted in a tRPC input, checked before the schema parses it. */
  maxInputDepth: number;
}

export const DEFAULT_LIMITS: Limits = {
  keyRate: { perSecond: 100, burst: 200 },
  tenantRate: { perSecond: 500, burst: 1000 },
  failedAuthPerSecret: { perSecond: 0.2, burst: 10 },
  failedAuthPerAddress: { perSecond: 1, burst: 30 },
  subscriptionsPerKey: 500,
  subscriptionsPerSocket: 100,
  socketsPerKey: 20,
  requestsPerKey: 64,
  tenantStorageBytes: 10 * 1024 ** 3,
  streamRecheckMs: 1000,
  lastUsedFlushMs: 30_000,
  maxInputDepth: 32,
};

/** A rate that never limits: for load tests and benchmarks, which measure the gateway itself. */
export const UNLIMITED_RATE: Rate = {
  perSecond: Number.MAX_SAFE_INTEGER,
  burst: Number.MAX_SAFE_INTEGER,
};

export type LimitOverrides = { [K in keyof Limits]?: Limits[K] | undefined };

export function resolveLimits(overrides: LimitOverrides = {}): Limits {
  const out = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(overrides)) {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}
