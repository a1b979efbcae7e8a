// The gateway's dispatcher conformance suite on Cloudflare Workflows from a Node gateway: the REST
// dispatcher against a local fake of the Workflows API. A consumer "takes" what became a Workflow
// instance (the platform pushes each into its run). Priorities are refused here: the suite's
// refusal case runs, its priority case is skipped by the flag.
import { dispatcherConformance } from '@sluice/gateway/conformance';
import type { MessagePointer } from '@sluice/contracts';
import { startFakeWorkflowsApi } from '../testing/fake-workflows-api.js';
import { createWorkflowsRestDispatcher } from './create-workflows-rest-dispatcher.js';

const ACCOUNT = 'acc-conformance';
const TOKEN = 'tok-conformance';

dispatcherConformance('cloudflare-workflows (REST)', {
  async open(database) {
    const fake = await startFakeWorkflowsApi({ accountId: ACCOUNT, apiToken: TOKEN });
    const seen = new Set<string>();
    return {
      dispatcher: createWorkflowsRestDispatcher({
        database,
        accountId: ACCOUNT,
        apiToken: TOKEN,
        apiBase: fake.url,
        workflows: { v1: 'conformance-v1', v2: 'conformance-v2' },
      }),
      async take(max) {
        // Instances in creation order; each is taken once.
        await new Promise((r) => setTimeout(r, 100));
        const out: MessagePointer[] = [];
        for (const instance of fake.instances.values()) {
          if (out.length >= max) break;
          if (seen.has(instance.id)) continue;
          seen.add(instance.id);
          out.push(instance.params as MessagePointer);
        }
        return out;
      },
      close: () => fake.close(),
    };
  },
});
