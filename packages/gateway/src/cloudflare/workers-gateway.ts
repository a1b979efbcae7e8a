// `createWorkersGateway({ jobs, runtime })`: the gateway as a Cloudflare Worker. The SAME core as
// the Node gateway (wire/wire-gateway.ts: gatekeeper, accept path, app router, `/trpc`), served
// with Hono's fetch adapter; D1 as the job database, the runtime's Workers half as the
// dispatcher (workers-runtime.ts), subscriptions over SSE (tRPC's httpSubscriptionLink) polling
// D1 from inside each stream's request. What differs is injected, never forked: WebCrypto for
// hashes and keys (web-crypto.ts), the request clock for periodic work (request-clock.ts), the
// polling hub (polling-hub.ts), the outbox dispatch path, and the cron passes (cron.ts). What a
// Worker cannot do is listed in WORKERS_GATEWAY_FEATURES and refused with a typed error, never
// silently ignored.
//
//   const gateway = createWorkersGateway({
//     jobs,
//     runtime: workflowsOnWorkers({ workflows: { v1: 'WF_V1', v2: 'WF_V2' } }),
//   });
//   export default { fetch: gateway.fetch, scheduled: gateway.scheduled };

import { SluiceError, type JobRegistry, type RetentionSettingsInput } from '@sluice/contracts';
import {
  createR2BlobStore,
  openD1Database,
  type D1Like,
  type R2BucketLike,
} from '@sluice/storage/portable';
import { z } from 'zod';
import { createKeyAuth, type AuthOptions } from '../auth/key-cache.js';
import type { UrlSigner } from '../downloads/signed-urls.js';
import type { GatewayHooks } from '../hooks.js';
import type { LimitOverrides } from '../limits/limits.js';
import type { GatewayLogger } from '../observability/logger.js';
import type { RunRecoveryOptions } from '../recovery/recover-lost-runs.js';
import { resolveGatewaySettings } from '../wire/settings.js';
import { wireGateway } from '../wire/wire-gateway.js';
import { startCronPasses } from './cron.js';
import { refusedOnWorkers, WORKERS_GATEWAY_FEATURES } from './features.js';
import { createOutboxDispatchPath } from './outbox-dispatch.js';
import type { ExecutionContextLike } from './platform.js';
import { createPollingHub } from './polling-hub.js';
import { createRequestClock } from './request-clock.js';
import { WEB_ACCEPT_CRYPTO, webKeyLookup } from './web-crypto.js';
import type { WorkersRuntime } from './workers-runtime.js';

export interface WorkersGatewayOptions<R extends JobRegistry> {
  jobs: R;
  /** The runtime's Workers half (`workflowsOnWorkers({ workflows })`). */
  runtime: WorkersRuntime;
  /** Binding names in env (defaults: DB, BLOBS; BLOBS may be absent). */
  bindings?: { database?: string; blobs?: string } | undefined;
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
   * The run recovery of `scheduled`, for a runtime whose runs can be asked about (`runs`): jobs
   * whose run died are run again or dead-lettered (recovery/recover-lost-runs.ts; defaults
   * there). `false` turns it off.
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
   * recovers jobs whose run died (a runtime with `runs`), and runs a retention pass (one Worker
   * at a time each, under a lock in D1).
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

/** What is checked of the options when the Worker loads (the rest is typed, or parsed where used). */
const RuntimeHalf = z.looseObject({
  dispatcher: z.custom<WorkersRuntime['dispatcher']>((f) => typeof f === 'function'),
});

function checkRuntime(runtime: unknown): void {
  if (RuntimeHalf.safeParse(runtime).success) return;
  throw new SluiceError(
    'INVALID_CONFIG',
    "createWorkersGateway runtime: needs the runtime's Workers half (its package's, e.g. `./workers`)",
    { details: { field: 'runtime' } },
  );
}

function binding<T>(env: object, name: string): T | undefined {
  return (env as Record<string, unknown>)[name] as T | undefined;
}

export function createWorkersGateway<R extends JobRegistry>(
  options: WorkersGatewayOptions<R>,
): WorkersGateway {
  checkRuntime(options.runtime);
  const logger = options.logger ?? consoleLogger;
  const onError = (what: string) => (error: unknown) => logger.error(what, { error });
  const names = { database: 'DB', blobs: 'BLOBS', ...options.bindings };
  // Checked when the Worker loads: a wrong setting fails the deploy's first request, named.
  const { limits, hooks, retention } = resolveGatewaySettings(options.jobs, options);
  // One gateway per isolate and env (bindings are the same objects for every request).
  const built = new WeakMap<object, ReturnType<typeof build>>();

  function build(env: object) {
    const d1 = binding<D1Like>(env, names.database);
    if (!d1) throw new SluiceError('INVALID_CONFIG', `no D1 binding "${names.database}"`);
    const database = openD1Database(d1);
    const r2 = binding<R2BucketLike>(env, names.blobs);
    const blobs = r2 ? createR2BlobStore(r2) : undefined;
    const dispatcher = options.runtime.dispatcher(env, { database });
    const clock = createRequestClock();
    const core = wireGateway({
      jobs: options.jobs,
      database,
      // files.* reads rows only; a delete without a bucket is refused by `refusedOnWorkers`.
      blobs: blobs as NonNullable<typeof blobs>,
      runtime: dispatcher,
      logger,
      hooks,
      limits,
      auth: createKeyAuth(webKeyLookup(database.db, options.auth?.devKey), {
        ...options.auth,
        shareLookups: false,
      }),
      every: clock.every,
      hub: createPollingHub(database.db, {
        intervalMs: options.eventPollMs,
        onError: onError('event poll'),
      }),
      dispatch: createOutboxDispatchPath(dispatcher, database, onError('dispatch')),
      crypto: WEB_ACCEPT_CRYPTO,
      metrics: { submits: 0, duplicates: 0, unroutable: 0, observeAccept: () => {} },
      // No cache: a Workers runtime reads its served versions from env, and nothing is shared.
      servedVersionsCacheMs: 0,
      rollout: options.rollout,
      address: (c) => c.req.header('cf-connecting-ip'),
      maxRequestBytes: options.maxRequestBytes,
      refuse: (path) => refusedOnWorkers(path, { blobs: blobs !== undefined }),
    });
    const { app } = core;
    app.get('/healthz', (c) => c.json({ ok: true }));
    app.get('/readyz', async (c) => {
      await d1.prepare('select 1').all();
      return c.json({ ok: true, runtime: dispatcher.name });
    });
    core.mountApi(core.router({ signer: noSigner }));
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
      const settings = { ...options, retention };
      for (const pass of startCronPasses(gatewayFor(env), settings, onError)) ctx.waitUntil(pass);
    },
  };
}
