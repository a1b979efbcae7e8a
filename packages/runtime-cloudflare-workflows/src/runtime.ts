// Cloudflare Workflows, driven from a Node gateway: jobs are accepted into this gateway's
// database, each becomes a Workflow instance created over the REST API (one Workflow per
// version), and the Workflow reads its job and writes its attempt, events and ledger rows through
// the signed callbacks (`/v1/runtime/store`, `/v1/runtime/state`; the class is built with
// `store: gatewayStoreFromEnv()`).
// The worker half is not started here: the Workflow classes (`createSluiceWorkflow`, from
// `@sluice/runtime-cloudflare-workflows/worker`) are deployed to Cloudflare, which pushes each
// job into them.
//
//   runtime: cloudflareWorkflows({ workflows: { v1: 'summarize-v1' }, accountId: '…' })
//
// This module stays light (the `./runtime` subpath): the gateway half imports the dispatcher and
// the callback routes when a gateway starts.
import { defineRuntime } from '@sluice/contracts';
import type { GatewayRuntimeHalf, RuntimeResources } from '@sluice/gateway';
import { z } from 'zod';
import { CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES } from './capabilities.js';

export const CloudflareWorkflowsOptions = z
  .object({
    /** The Workflow of each version (`{ v1: 'summarize-v1' }`). */
    workflows: z.record(z.string(), z.string().min(1)).default({}),
    /** Env CLOUDFLARE_ACCOUNT_ID wins. */
    accountId: z.string().min(1).optional(),
    /** Env CLOUDFLARE_API_TOKEN wins; better given by the environment only. */
    apiToken: z.string().min(1).optional(),
    /** Another API base (tests). */
    apiBase: z.string().min(1).optional(),
    /** The state callback's HMAC secret (≥ 32 characters). Env SLUICE_STATE_CALLBACK_SECRET wins. */
    callbackSecret: z.string().min(1).optional(),
    /**
     * Run recovery (the reconciler's step): jobs with no write for `quietMs` whose instance
     * errored, was terminated, is gone, completed without storing an outcome, or says `running`
     * with no write for `stuckMs` run again under a new epoch, or are dead-lettered once their
     * budget is spent; `everyMs` between passes. `false` turns it off.
     */
    recovery: z
      .union([
        z.literal(false),
        z
          .object({
            quietMs: z.number().int().min(1000).optional(),
            stuckMs: z.number().int().min(1000).optional(),
            everyMs: z.number().int().min(100).optional(),
            pageSize: z.number().int().min(1).max(1000).optional(),
            maxPages: z.number().int().min(1).max(100).optional(),
          })
          .strict(),
      ])
      .optional(),
  })
  .strict();
export type CloudflareWorkflowsOptions = z.input<typeof CloudflareWorkflowsOptions>;

export const cloudflareWorkflows = defineRuntime({
  name: 'cloudflare-workflows',
  options: CloudflareWorkflowsOptions,
  env: {
    accountId: { name: 'CLOUDFLARE_ACCOUNT_ID', description: 'the Cloudflare account' },
    apiToken: { name: 'CLOUDFLARE_API_TOKEN', description: 'a Workflows API token' },
    callbackSecret: {
      name: 'SLUICE_STATE_CALLBACK_SECRET',
      description: 'the state callback secret (at least 32 characters)',
    },
  },
  capabilities: () => CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES,
  check(o) {
    if (!o.accountId) return 'needs CLOUDFLARE_ACCOUNT_ID (or accountId)';
    if (!o.apiToken) return 'needs CLOUDFLARE_API_TOKEN';
    if (Object.keys(o.workflows).length === 0) return 'needs workflows: version → Workflow name';
    if (!o.callbackSecret || o.callbackSecret.length < 32)
      return 'needs SLUICE_STATE_CALLBACK_SECRET (at least 32 characters)';
    return undefined;
  },
  async gateway(o, { database }: RuntimeResources): Promise<GatewayRuntimeHalf> {
    const [{ createWorkflowsRestDispatcher }, { stateCallbackRoutes }, { startReconciler }] =
      await Promise.all([
        import('./gateway/create-workflows-rest-dispatcher.js'),
        import('./gateway/state-callback-route.js'),
        import('@sluice/gateway'),
      ]);
    const dispatcher = createWorkflowsRestDispatcher({
      database,
      accountId: o.accountId as string,
      apiToken: o.apiToken as string,
      apiBase: o.apiBase,
      workflows: o.workflows,
    });
    // The outbox rows a failed create left, and the runs that died: Workflows live outside the
    // job database, so the reconciler is what finds both.
    const reconciler = startReconciler(
      { runRecovery: o.recovery },
      {
        database,
        runtime: dispatcher,
        onError: (error) =>
          console.error(
            JSON.stringify({ level: 'error', msg: 'reconciler', error: String(error) }),
          ),
      },
    );
    return {
      dispatcher,
      routes: stateCallbackRoutes({ secret: o.callbackSecret as string }),
      close: async () => {
        await reconciler?.close();
        await dispatcher.close();
      },
    };
  },
  worker: () => ({
    kind: 'push',
    entry: '@sluice/runtime-cloudflare-workflows/worker',
    instructions:
      'the cloudflare-workflows runtime has no worker process: export createSluiceWorkflow({ jobs, handlers, version, store: gatewayStoreFromEnv() }) from a Worker and deploy it (examples/cloudflare/README.md)',
  }),
});
