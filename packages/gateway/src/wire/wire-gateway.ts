// The gateway's core, wired once for every platform: admission (gatekeeper), the accept path,
// the app router, the Hono app with its per-key request slots and the `/trpc` endpoint. The Node
// gateway (create-gateway.ts) and the Workers gateway (cloudflare/workers-gateway.ts) build the
// parts that differ — key lookups, hashing, the event hub, the dispatch path, metrics, timers —
// and hand them in; what every platform does the same lives here, so a new runtime duty or a
// new router dependency is wired in one place. The runtime's optional duties are wired by
// presence (gateway-dispatcher.ts), never by its name: `stopRun` for cancels, `announceDeadLetter`
// for jobs dead-lettered at submit.
//
//   const core = wireGateway({ jobs, database, blobs, runtime, logger, hooks, limits, ...platform });
//   // platform routes on core.app …
//   core.mountApi(core.router({ signer }));

import type { JobRegistry } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage/portable';
import { Hono, type Context } from 'hono';
import {
  createAcceptor,
  type AcceptCrypto,
  type AcceptDeps,
  type AcceptMetrics,
} from '../accept/accept.js';
import { createGatekeeper, type Every, type Gatekeeper } from '../auth/gatekeeper.js';
import type { ApiKeyAuth } from '../auth/key-cache.js';
import type { DispatchPath } from '../dispatch/dispatch.js';
import type { EventHub } from '../events/event-hub.js';
import type { GatewayHooks } from '../hooks.js';
import type { Limits } from '../limits/limits.js';
import type { GatewayLogger } from '../observability/logger.js';
import type { RouterDeps } from '../routers/deps.js';
import { createAppRouter, type AppRouter } from '../routers/index.js';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../trpc/errors.js';
import { createServedVersionCheck } from '../dispatch/served-versions.js';
import { requestLimit } from '../http/request-limit.js';
import type { RefuseProcedure } from '../trpc/procedures.js';
import { trpcHttpHandler } from '../trpc/http-handler.js';
import type { GatewayDispatcher } from './gateway-dispatcher.js';
import { logRequests } from './log-requests.js';

export interface GatewayParts<R extends JobRegistry> {
  jobs: R;
  database: SluiceDatabase;
  blobs: BlobStore;
  runtime: GatewayDispatcher;
  logger: GatewayLogger;
  hooks: GatewayHooks;
  limits: Limits;
  /** API-key verification (a Node lookup with a shared cache, or WebCrypto per request). */
  auth: ApiKeyAuth;
  /** The gatekeeper's periodic work: Node timers by default, the request clock on Workers. */
  every?: Every | undefined;
  hub: EventHub;
  dispatch: DispatchPath;
  crypto: AcceptCrypto;
  metrics: AcceptMetrics;
  /** Counts a refused call by code (metrics); absent where there are none. */
  onReject?: ((code: string) => void) | undefined;
  /** How long the runtime's served versions are cached (0: read per submit). */
  servedVersionsCacheMs?: number | undefined;
  rollout?: Readonly<Record<string, number>> | undefined;
  /** Accept-path settings only some platforms use (tracing, kind limits, group commit, …). */
  accept?: Pick<AcceptDeps, 'tracer' | 'kindLimits' | 'batch' | 'onScheduled'> | undefined;
  /** The client's address (failed-auth throttling per address). */
  address: (c: Context) => string | undefined;
  /** Largest tRPC request body (default 1 MiB). */
  maxRequestBytes?: number | undefined;
  /**
   * Ends the connection of a refused oversized request: Node has not read the rest of its body,
   * so the connection cannot carry another request.
   */
  closeOnTooLarge?: boolean | undefined;
  /** Procedures the platform cannot honour, refused with a typed error. */
  refuse?: RefuseProcedure | undefined;
}

/** Router dependencies a platform supplies itself (what it serves beyond the core). */
export type RouterExtras = Pick<
  RouterDeps,
  'signer' | 'waits' | 'onScheduleTick' | 'bulk' | 'latency'
>;

export interface GatewayCore<R extends JobRegistry> {
  readonly gate: Gatekeeper;
  readonly accept: ReturnType<typeof createAcceptor>;
  /**
   * Stops the run of a cancelled job, where the runtime's runs do not watch their job row (its
   * `stopRun`); for every path that cancels (the router's, and bulk operations on Node).
   */
  readonly stopRun: RouterDeps['stopRun'];
  /** The Hono app, with request logging (debug) and the per-key request slots in front. */
  readonly app: Hono;
  /** The app router over the core's parts and the platform's extras. */
  router(extras: RouterExtras): AppRouter<R>;
  /** Mounts `/trpc` and the error answer, after the platform's own routes. */
  mountApi(router: AppRouter<R>): void;
}

export function wireGateway<R extends JobRegistry>(p: GatewayParts<R>): GatewayCore<R> {
  const { database, runtime, logger, hooks, limits } = p;
  const reject = (code: string) => p.onReject?.(code);
  const gate = createGatekeeper({
    db: database.db,
    auth: p.auth,
    limits,
    logger,
    hooks,
    every: p.every,
  });
  const announce = runtime.announceDeadLetter?.bind(runtime);
  const stopRun = runtime.stopRun?.bind(runtime);
  const accept = createAcceptor({
    crypto: p.crypto,
    jobs: p.jobs,
    database,
    dispatch: p.dispatch,
    served: createServedVersionCheck(runtime, p.servedVersionsCacheMs),
    hub: p.hub,
    metrics: p.metrics,
    logger,
    rollout: p.rollout,
    capabilities: runtime.capabilities,
    hooks,
    // A job of a version nothing serves is dead-lettered at submit; a runtime with a dead-letter
    // queue hears of it as of one it dead-lettered itself.
    ...(announce ? { onDeadLettered: announce } : {}),
    ...p.accept,
  });
  const app = new Hono();
  logRequests(app, logger);
  app.use('*', gate.requests.middleware);

  return {
    gate,
    accept,
    stopRun,
    app,
    router: (extras) =>
      createAppRouter(
        {
          jobs: p.jobs,
          database,
          blobs: p.blobs,
          hub: p.hub,
          accept,
          dispatch: p.dispatch,
          logger,
          hooks,
          stopRun,
          ...extras,
        },
        gate,
        limits.maxInputDepth,
        p.refuse,
      ),
    mountApi(router) {
      app.use(
        '/trpc/*',
        requestLimit({
          maxSize: p.maxRequestBytes ?? 1024 * 1024,
          onError: (c) => {
            reject('PAYLOAD_TOO_LARGE');
            if (p.closeOnTooLarge) c.header('Connection', 'close');
            return c.json(
              { error: { code: 'PAYLOAD_TOO_LARGE', message: 'request too large' } },
              413,
            );
          },
        }),
        trpcHttpHandler({ router, logger, address: p.address, onReject: reject }),
      );
      app.onError((error, c) => {
        logger.error('request failed', { path: c.req.path, error });
        // A database that cannot answer right now is a retryable 503, as on /trpc.
        if (database.dialect.isUnavailable(error))
          return c.json(
            { error: { code: 'UNAVAILABLE', message: DATABASE_UNAVAILABLE_MESSAGE } },
            503,
          );
        return c.json({ error: { code: 'INTERNAL', message: 'Internal server error' } }, 500);
      });
    },
  };
}
