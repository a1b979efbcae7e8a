// `createWorkersGateway({ jobs, workflows })`: the gateway as a Cloudflare Worker. The SAME tRPC
// app router as the Node gateway, served with Hono's fetch adapter; D1 as the job database, the
// Workflow bindings as the dispatcher, subscriptions over SSE (tRPC's httpSubscriptionLink)
// polling D1 from inside each stream's request, the same API keys, scopes, rate limits and
// tenant scoping through the same gatekeeper. What differs is injected, never forked:
// WebCrypto for hashes and keys (web-crypto.ts), the request clock for periodic work
// (request-clock.ts), the polling hub (polling-hub.ts), the outbox dispatch path with its cron
// reconcile (outbox-dispatch.ts). What a Worker cannot do is listed in WORKERS_GATEWAY_FEATURES
// and refused with a typed error, never silently ignored.
//
//   const gateway = createWorkersGateway({ jobs, workflows: { v1: 'WF_V1', v2: 'WF_V2' } });
//   export default { fetch: gateway.fetch, scheduled: gateway.scheduled };

import {
  randomToken,
  SluiceError,
  type JobRegistry,
  type MessagePointer,
  type RetentionSettingsInput,
} from '@sluice/contracts';
import {
  createR2BlobStore,
  openD1Database,
  type D1Like,
  type R2BucketLike,
} from '@sluice/storage/portable';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createAcceptor } from '../accept/accept.js';
import { createGatekeeper } from '../auth/gatekeeper.js';
import { createKeyAuth, type AuthOptions } from '../auth/key-cache.js';
import type { UrlSigner } from '../downloads/signed-urls.js';
import { resolveGatewayHooks, type GatewayHooks } from '../hooks.js';
import { resolveLimits, type LimitOverrides } from '../limits/limits.js';
import type { GatewayLogger } from '../observability/logger.js';
import { createAppRouter } from '../routers/index.js';
import { resolveRetention, runRetentionPass } from '../retention/run-retention-pass.js';
import { createServedVersionCheck } from '../dispatch/served-versions.js';
import { trpcHttpHandler } from '../trpc/http-handler.js';
import { createOutboxDispatchPath, reconcileOutbox } from './outbox-dispatch.js';
import { recoverRunsOnce } from './run-recovery-pass.js';
import type { RunRecoveryOptions } from '../recovery/recover-lost-runs.js';
import type { ExecutionContextLike, QueueLike, WorkflowBindingLike } from './platform.js';
import { createPollingHub } from './polling-hub.js';
import { createRequestClock } from './request-clock.js';
import { WEB_ACCEPT_CRYPTO, webKeyLookup } from './web-crypto.js';
import { createWorkflowsDispatcher } from './workflows-dispatcher.js';
import { refusedOnWorkers, WORKERS_GATEWAY_FEATURES } from './features.js';

export interface WorkersGatewayOptions<R extends JobRegistry> {
  jobs: R;
  /** version → the env binding name of its Workflow (`{ v1: 'WF_V1', v2: 'WF_V2' }`). */
  workflows: Readonly<Record<string, string>>;
  /** Binding names in env (defaults: DB, BLOBS, DLQ; BLOBS and DLQ may be absent). */
  bindings?: { database?: string; blobs?: string; deadLetters?: string } | undefined;
  /** Same as the Node gateway's; lookups are never shared across requests here. */
  auth?: Omit<AuthOptions, 'shareLookups'> | undefined;
  limits?: LimitOverrides | undefined;
  /** How often an open subscription reads D1 (default 250 ms). */
  eventPollMs?: number | undefined;
  /** Per-kind override of `versions.rolloutPercent` (0–100). */
  rollout?: Readonly<Record<string, number>> | undefined;
  /** Largest tRPC request body (default 1 MiB). */
  maxRequestBytes?: number | undefined;
  /** An outbox row this old is re-dispatched by `scheduled` (default 30 s). */
  reconcileGraceMs?: number | undefined;
  /**
   * The run recovery of `scheduled`: jobs whose Workflow instance died are run again or
   * dead-lettered (recovery/recover-lost-runs.ts; defaults there). `false` turns it off.
   */
  recovery?: RunRecoveryOptions | false | undefined;
  logger?: GatewayLogger | undefined;
  /** Test seams (hooks.ts); production passes nothing. */
  hooks?: Partial<GatewayHooks> | undefined;
  /**
   * Retention, as on the Node gateway; its pass runs from `scheduled` (a cron trigger), smaller
   * by default so one invocation stays within a Worker's limits: 200 jobs a batch, 10 batches.
   */
  retention?: RetentionSettingsInput | undefined;
}

export interface WorkersGateway {
  /** The Worker's `fetch` handler. */
  fetch(request: Request, env: object, ctx: ExecutionContextLike): Promise<Response>;
  /**
   * The Worker's `scheduled` handler (a cron trigger): re-dispatches what the outbox still owes,
   * recovers jobs whose Workflow instance died, and runs a retention pass (one Worker at a time
   * each, under a lock in D1).
   */
  scheduled(controller: unknown, env: object, ctx: ExecutionContextLike): Promise<void>;
  readonly features: typeof WORKERS_GATEWAY_FEATURES;
}

const consoleLogger: GatewayLogger = {
  warn: (msg, fields) => console.warn(JSON.stringify({ level: 'warn', msg, ...fields })),
  error: (msg, fields) =>
    console.error(JSON.stringify({ level: 'error', msg, error: String(fields?.error ?? '') })),
};

/** Download links need a signer the Worker does not have: refused, typed. */
const noSigner: UrlSigner = {
  sign() {
    throw new SluiceError('BAD_REQUEST', 'the Workers gateway serves no downloads', {
      details: { feature: 'downloads' },
    });
  },
  verify: () => undefined,
};

function binding<T>(env: object, name: string): T | undefined {
  return (env as Record<string, unknown>)[name] as T | undefined;
}

export function createWorkersGateway<R extends JobRegistry>(
  options: WorkersGatewayOptions<R>,
): WorkersGateway {
  const logger = options.logger ?? consoleLogger;
  const onError = (what: string) => (error: unknown) => logger.error(what, { error });
  const names = { database: 'DB', blobs: 'BLOBS', deadLetters: 'DLQ', ...options.bindings };
  // Checked when the Worker loads: a wrong setting fails the deploy's first request, named.
  const retention = resolveRetention(
    options.jobs,
    options.retention,
    resolveGatewayHooks(options.hooks).retentionKey,
  );
  // One gateway per isolate and env (bindings are the same objects for every request).
  const built = new WeakMap<object, ReturnType<typeof build>>();

  function build(env: object) {
    const d1 = binding<D1Like>(env, names.database);
    if (!d1) throw new SluiceError('INVALID_CONFIG', `no D1 binding "${names.database}"`);
    const database = openD1Database(d1);
    const r2 = binding<R2BucketLike>(env, names.blobs);
    const workflows: Record<string, WorkflowBindingLike<MessagePointer> | undefined> = {};
    for (const [version, name] of Object.entries(options.workflows)) {
      workflows[version] = binding(env, name);
    }
    const dispatcher = createWorkflowsDispatcher({
      database,
      workflows,
      deadLetters: binding<QueueLike>(env, names.deadLetters),
    });
    const limits = resolveLimits(options.limits);
    const clock = createRequestClock();
    const auth = createKeyAuth(webKeyLookup(database.db, options.auth?.devKey), {
      ...options.auth,
      shareLookups: false,
    });
    const gate = createGatekeeper({
      db: database.db,
      auth,
      limits,
      logger,
      hooks: resolveGatewayHooks(options.hooks),
      every: clock.every,
    });
    const hub = createPollingHub(database.db, {
      intervalMs: options.eventPollMs,
      onError: onError('event poll'),
    });
    const dispatch = createOutboxDispatchPath(dispatcher, database, onError('dispatch'));
    const accept = createAcceptor({
      crypto: WEB_ACCEPT_CRYPTO,
      jobs: options.jobs,
      database,
      dispatch,
      // No cache: the bound versions are read from env, no I/O, and nothing is shared.
      served: createServedVersionCheck(dispatcher, 0),
      hub,
      metrics: { submits: 0, duplicates: 0, unroutable: 0, observeAccept: () => {} },
      logger,
      rollout: options.rollout,
      capabilities: dispatcher.capabilities,
      // A job of an unbound version is dead-lettered at submit: its DLQ message goes out too.
      onDeadLettered: (dead) => dispatcher.announceDeadLetter(dead),
    });
    const blobs = r2 ? createR2BlobStore(r2) : undefined;
    const router = createAppRouter(
      {
        jobs: options.jobs,
        database,
        // files.* reads rows only; a delete without a bucket is refused by `refusedOnWorkers`.
        blobs: blobs as NonNullable<typeof blobs>,
        hub,
        accept,
        dispatch,
        logger,
        signer: noSigner,
        stopRun: (job) => dispatcher.stopRun(job),
      },
      gate,
      limits.maxInputDepth,
      (path) => refusedOnWorkers(path, { blobs: blobs !== undefined }),
    );
    const app = new Hono();
    // Per-key HTTP requests in flight, as on Node (an open SSE stream counts as a subscription).
    app.use('*', gate.requests.middleware);
    app.get('/healthz', (c) => c.json({ ok: true }));
    app.get('/readyz', async (c) => {
      await d1.prepare('select 1').all();
      return c.json({ ok: true, runtime: dispatcher.name, versions: Object.keys(workflows) });
    });
    app.use(
      '/trpc/*',
      bodyLimit({
        maxSize: options.maxRequestBytes ?? 1024 * 1024,
        onError: (c) =>
          c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'request too large' } }, 413),
      }),
      trpcHttpHandler({
        router,
        logger,
        address: (c) => c.req.header('cf-connecting-ip'),
      }),
    );
    app.onError((error, c) => {
      logger.error('request failed', { path: c.req.path, error });
      return c.json({ error: { code: 'INTERNAL', message: 'Internal server error' } }, 500);
    });
    return { app, clock, dispatcher, database, blobs };
  }

  function gatewayFor(env: object) {
    let g = built.get(env);
    if (!g) built.set(env, (g = build(env)));
    return g;
  }

  return {
    features: WORKERS_GATEWAY_FEATURES,
    async fetch(request, env, ctx) {
      const g = gatewayFor(env);
      const response = await g.app.fetch(request, env, ctx as never);
      ctx.waitUntil(g.clock.runDue().catch(onError('periodic gateway work')));
      return response;
    },
    async scheduled(_controller, env, ctx) {
      const g = gatewayFor(env);
      ctx.waitUntil(
        reconcileOutbox(g.dispatcher, g.database, { graceMs: options.reconcileGraceMs }).catch(
          onError('outbox reconcile'),
        ),
      );
      if (options.recovery !== false) {
        ctx.waitUntil(
          recoverRunsOnce(g.dispatcher, g.database, options.recovery ?? {}).catch(
            onError('run recovery'),
          ),
        );
      }
      ctx.waitUntil(
        runRetentionPass({
          database: g.database,
          blobs: g.blobs,
          retention,
          owner: `cron-${randomToken().slice(0, 12)}`,
          defaults: { batchSize: 200, maxBatches: 10 },
        }).catch(onError('retention pass')),
      );
    },
  };
}
