// The one admission check of the gateway: every tRPC call (HTTP, SSE, WebSocket), upload and
// download goes through `admit`, which authenticates the key, checks the scope the entry point
// declared, and takes a token from the key's and the tenant's rate buckets. Failed
// authentications are throttled per client address and per presented secret before any lookup,
// never per key id: a request presenting the right secret keeps working while someone else
// guesses at its key id (failed-auth-throttle.ts says how). The WebSocket login authenticates
// through the same `authenticate`, so HTTP, SSE and WebSocket share one count. Open streams take a slot (per key, per socket) and are watched: a
// revoked or expired key ends them within `streamRecheckMs` plus one query. An HTTP request holds
// one of its key's `requestsPerKey` slots until its answer is sent (request-slots.ts).
//
//   const gate = createGatekeeper({ db, auth, limits, logger });
//   const admitted = await gate.admit({ apiKey, address, scope: 'jobs:read' });
//   if (!admitted.ok) throw admitted.error;          // a SluiceError: UNAUTHORIZED, FORBIDDEN, RATE_LIMITED

import { SluiceError, type ApiKeyScope } from '@sluice/contracts';
import { liveApiKeyIds, touchApiKeys, type Db } from '@sluice/storage/portable';
import { DEFAULT_GATEWAY_HOOKS, type GatewayHooks, type Transport } from '../hooks.js';
import type { Limits } from '../limits/limits.js';
import { createTokenBuckets } from '../limits/token-bucket.js';
import { createFailedAuthThrottle } from './failed-auth-throttle.js';
import { createRequestSlots, type RequestSlots } from './request-slots.js';
import type { GatewayLogger } from '../observability/logger.js';
import { isExpired, type ApiKeyAuth, type Principal } from './key-cache.js';

export const UNAUTHORIZED_MESSAGE = 'missing or invalid API key';

export interface AdmitRequest {
  apiKey: string | null;
  /** The client's address (per-address failed-auth throttling); null when unknown. */
  address: string | null;
  scope: ApiKeyScope;
  /** What is called and how (default: a query over HTTP). */
  call?: Parameters<GatewayHooks['scopeHeld']>[2];
  /** The HTTP request, which takes one of its key's in-flight slots; absent on a WebSocket. */
  request?: Request | null;
}

export type Admission = { ok: true; principal: Principal } | { ok: false; error: SluiceError };

/** Counts open streams of one connection (a WebSocket); HTTP streams have none. */
export interface StreamSlotOwner {
  streams: number;
}

export interface OpenStream {
  /** Aborts when the key is revoked or expires (reason: a SluiceError UNAUTHORIZED). */
  readonly ended: AbortSignal;
  release(): void;
}

export interface Gatekeeper {
  admit(request: AdmitRequest): Promise<Admission>;
  /**
   * The key's principal, or UNAUTHORIZED, or RATE_LIMITED after too many failures from this
   * address or with this secret (no scope, no rate: the WebSocket login).
   */
  authenticate(request: Pick<AdmitRequest, 'apiKey' | 'address'>): Promise<Principal | SluiceError>;
  /** A slot for a stream of `principal`, or the RATE_LIMITED error when over a limit. */
  openStream(
    principal: Principal,
    transport: Transport,
    owner?: StreamSlotOwner,
  ): OpenStream | SluiceError;
  /** Re-checks open streams' keys now (the timer does it every `streamRecheckMs`). */
  recheckStreams(): Promise<void>;
  /** Open streams now (all keys). */
  streamCount(): number;
  /** HTTP requests in flight per key; its middleware goes before every route. */
  readonly requests: RequestSlots;
  /** Writes pending `last_used_at` and stops the timers. */
  close(): Promise<void>;
}

/**
 * Runs `fn` every `ms` until the returned stop function is called. Node: an unref'd interval
 * (the default). Workers have no background timers: the Workers gateway passes a clock that runs
 * what is due after each request (cloudflare/request-clock.ts).
 */
export type Every = (ms: number, fn: () => void | Promise<void>) => () => void;

export const nodeEvery: Every = (ms, fn) => {
  const timer = setInterval(() => void fn(), ms);
  timer.unref();
  return () => clearInterval(timer);
};

interface Deps {
  db: Db;
  auth: ApiKeyAuth;
  limits: Limits;
  logger: GatewayLogger;
  hooks?: GatewayHooks;
  every?: Every;
}

export function rateLimited(retryAfterMs: number, what: string): SluiceError {
  return new SluiceError(
    'RATE_LIMITED',
    `${what}; retry after ${Math.ceil(retryAfterMs / 1000)} s`,
    {
      details: { retryAfterMs },
    },
  );
}

export function createGatekeeper(deps: Deps): Gatekeeper {
  const { auth, limits } = deps;
  const hooks = deps.hooks ?? DEFAULT_GATEWAY_HOOKS;
  const keyBuckets = createTokenBuckets(limits.keyRate);
  const tenantBuckets = createTokenBuckets(limits.tenantRate);
  const throttle = createFailedAuthThrottle(limits);
  const requests = createRequestSlots(limits.requestsPerKey);
  const used = new Set<string>();
  // keyId -> open streams of that key
  const streams = new Map<
    string,
    Set<{ principal: Principal; transport: Transport; abort: AbortController }>
  >();

  async function authenticate(
    request: Pick<AdmitRequest, 'apiKey' | 'address'>,
  ): Promise<Principal | SluiceError> {
    const known = auth.cached(request.apiKey);
    if (known) return known;
    const ticket = await throttle.begin(request.apiKey, request.address);
    if (ticket.waitMs > 0) return rateLimited(ticket.waitMs, 'too many failed authentications');
    let principal: Principal | undefined;
    try {
      principal = await auth.verify(request.apiKey);
    } catch (error) {
      ticket.settle('unknown');
      throw error;
    }
    ticket.settle(principal ? 'verified' : 'refused');
    return principal ?? new SluiceError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  }

  async function admit(request: AdmitRequest): Promise<Admission> {
    const principal = await authenticate(request);
    if (principal instanceof SluiceError) return { ok: false, error: principal };
    const call = request.call ?? { type: 'query', transport: 'http' };
    if (!hooks.scopeHeld(principal.scopes, request.scope, call)) {
      return {
        ok: false,
        error: new SluiceError('FORBIDDEN', `this API key lacks the "${request.scope}" scope`),
      };
    }
    const keyWait = keyBuckets.take(principal.keyId);
    if (keyWait > 0) return { ok: false, error: rateLimited(keyWait, 'API key rate limit') };
    const tenantWait = tenantBuckets.take(principal.tenantId);
    if (tenantWait > 0) return { ok: false, error: rateLimited(tenantWait, 'tenant rate limit') };
    if (request.request && call.type !== 'subscription') {
      const full = requests.hold(request.request, principal.keyId);
      if (full) return { ok: false, error: full };
    }
    if (principal.source === 'stored') used.add(principal.keyId);
    return { ok: true, principal };
  }

  function openStream(
    principal: Principal,
    transport: Transport,
    owner?: StreamSlotOwner,
  ): OpenStream | SluiceError {
    const open = streams.get(principal.keyId) ?? new Set();
    if (open.size >= limits.subscriptionsPerKey) {
      return rateLimited(1000, `at most ${limits.subscriptionsPerKey} subscriptions per API key`);
    }
    if (owner && owner.streams >= limits.subscriptionsPerSocket) {
      return rateLimited(1000, `at most ${limits.subscriptionsPerSocket} subscriptions per socket`);
    }
    const entry = { principal, transport, abort: new AbortController() };
    open.add(entry);
    streams.set(principal.keyId, open);
    if (owner) owner.streams++;
    let released = false;
    return {
      ended: entry.abort.signal,
      release() {
        if (released) return;
        released = true;
        if (owner) owner.streams--;
        open.delete(entry);
        if (open.size === 0 && streams.get(principal.keyId) === open) {
          streams.delete(principal.keyId);
        }
      },
    };
  }

  function end(keyId: string, why: string): void {
    auth.forget(keyId);
    for (const s of streams.get(keyId) ?? []) {
      if (hooks.endsStream(s.transport)) s.abort.abort(new SluiceError('UNAUTHORIZED', why));
    }
  }

  async function recheckStreams(): Promise<void> {
    const now = Date.now();
    const stored: string[] = [];
    for (const [keyId, open] of streams) {
      const first = open.values().next().value;
      if (!first) continue;
      if (isExpired(first.principal, now)) end(keyId, 'API key expired');
      else if (first.principal.source === 'stored') stored.push(keyId);
    }
    if (stored.length === 0) return;
    const live = await liveApiKeyIds(deps.db, stored, now);
    for (const keyId of stored) if (!live.has(keyId)) end(keyId, 'API key revoked or expired');
  }

  async function flushUsed(): Promise<void> {
    if (used.size === 0) return;
    const ids = [...used];
    used.clear();
    await touchApiKeys(deps.db, ids);
  }

  const schedule = deps.every ?? nodeEvery;
  const every = (ms: number, what: string, fn: () => Promise<void>) => {
    let running = false;
    return schedule(ms, () => {
      if (running) return;
      running = true;
      return fn()
        .catch((error: unknown) => deps.logger.error(what, { error }))
        .finally(() => (running = false));
    });
  };
  const stopRecheck = every(limits.streamRecheckMs, 'stream key re-check failed', async () => {
    if (streams.size > 0) await recheckStreams();
  });
  const stopFlush = every(limits.lastUsedFlushMs, 'last_used_at write failed', flushUsed);

  return {
    admit,
    authenticate,
    openStream,
    recheckStreams,
    requests,
    streamCount: () => [...streams.values()].reduce((n, s) => n + s.size, 0),
    async close() {
      stopRecheck();
      stopFlush();
      await flushUsed().catch((error: unknown) =>
        deps.logger.error('last_used_at write failed', { error }),
      );
    },
  };
}
