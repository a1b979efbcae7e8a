// Cloudflare Workflows, driven from a Node gateway: jobs are accepted into this gateway's
// database, each becomes a Workflow instance created over the REST API (one Workflow per
// version), and the Workflow reads its job and writes its attempt, events and ledger rows through
// the signed callbacks (`/v1/runtime/store`, `/v1/runtime/state`; the class is built with
// `store: gatewayStoreFromEnv()`).
// The worker half is not started here: the Workflow classes (`createSluiceWorkflow` from
// `@sluice/worker/cloudflare`) are deployed to Cloudflare, which pushes each job into them.
import { CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES } from '@sluice/contracts';
import { createWorkflowsRestDispatcher } from '@sluice/gateway';
import type { SluiceRuntime } from './types.js';

export const cloudflareWorkflowsRuntime: SluiceRuntime<'cloudflare-workflows'> = {
  name: 'cloudflare-workflows',
  capabilities: CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES,
  check(s) {
    const cf = s.cloudflare;
    if (!cf.accountId) return 'needs CLOUDFLARE_ACCOUNT_ID (or cloudflare.accountId)';
    if (!cf.apiToken) return 'needs CLOUDFLARE_API_TOKEN';
    if (Object.keys(cf.workflows).length === 0)
      return 'needs cloudflare.workflows: version → Workflow name';
    if (!cf.callbackSecret || cf.callbackSecret.length < 32)
      return 'needs SLUICE_STATE_CALLBACK_SECRET (at least 32 characters)';
    return undefined;
  },
  gateway(settings, resources) {
    const cf = settings.cloudflare;
    const runtime = createWorkflowsRestDispatcher({
      database: resources.database,
      accountId: cf.accountId as string,
      apiToken: cf.apiToken as string,
      apiBase: cf.apiBase,
      workflows: cf.workflows,
    });
    return {
      runtime,
      stateCallback: { secret: cf.callbackSecret as string },
      close: () => runtime.close(),
    };
  },
  worker: {
    kind: 'push',
    entry: '@sluice/worker/cloudflare',
    instructions:
      'the cloudflare-workflows runtime has no worker process: export createSluiceWorkflow({ jobs, handlers, version, store: gatewayStoreFromEnv() }) from a Worker and deploy it (examples/cloudflare/README.md)',
  },
};
